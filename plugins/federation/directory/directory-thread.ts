/**
 * Where the directory's operations are kept: one derived thread (the
 * seed `["directory", "did:sync"]`, as thread-id.ts derives every thread),
 * the same on every instance, so an exported log imports into the mirror's
 * directory. Each accepted operation is one LEARN record on it:
 * `{kind: "directory.operation.v1", did, operation}`.
 */
import { canonicalJson } from '../../../core/records/canonical-json.js';
import { nobleSha256Hex } from '../../../core/records/sha256.js';

export const DIRECTORY_THREAD = 'th_' + nobleSha256Hex(canonicalJson(['directory', 'did:sync']));
export const DIRECTORY_RECORD_KIND = 'directory.operation.v1';
