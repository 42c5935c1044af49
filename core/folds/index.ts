export * from './fold.js';
export * from './thread-state.js';
export * from './namespace-registry.js';
export * from './config/index.js';
export * from './corrections.js';
export { verdictOutcome } from './verdict-outcome.js';
