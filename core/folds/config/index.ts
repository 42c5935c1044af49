export * from './config-topic.js';
export * from './config-fold.js';
