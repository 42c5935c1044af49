export * from './codes.js';
export * from './loom-error.js';
