export * from './config-topics.js';
export * from './config-fold.js';
