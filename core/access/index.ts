export * from './caller.js';
export * from './scopes.js';
export * from './authenticator.js';
export * from './ingest-gate.js';
export * from './read-policy.js';
export * from './restriction.js';
export * from './order-gates.js';
export * from './cors-policy.js';
