/** The did:sync directory (spec §4.13): registered by the federation plugin; its pure files run offline in `loom directory verify`. */
export { registerDirectory, DIRECTORY_ROUTES } from './register-directory.js';
export { directoryEnabledTopic } from './directory-enabled-topic.js';
export { DIRECTORY_THREAD, DIRECTORY_RECORD_KIND } from './directory-thread.js';
export { verifyOperations, type VerifyResult } from './verify-operations.js';
