export { runStoreCompliance } from './run-store-compliance.js';
export type { CrashOptions, OpenStoreAt, StoreComplianceOptions, StoreHarness } from './compliance-options.js';
export { makeTemporaryLocation, temporaryStoreFactory } from './temporary-store-factory.js';
export { loadStoreOpener, DEFAULT_OPENER_EXPORT } from './load-store-opener.js';
export { actorDid, makePrepared, resend, seededRandom, threadId, type PreparedInput } from './fixtures.js';
export { runBlobStoreCompliance, type BlobStoreComplianceOptions, type BlobStoreHarness } from './blob-store.suite.js';
