/**
 * Why the directory refuses an operation, as a code from the error catalogue
 * (core/errors/codes.ts) and the index of the operation in its log. A plain
 * error, not a LoomError: the offline verifier (`loom directory verify`) runs
 * this folder's pure files without the kernel; the routes and the ingest gate
 * turn it into a LoomError with the same code.
 */
export type DirectoryErrorCode =
  /** Not an operation: wrong field set, a field of the wrong syntax, a key that is not an Ed25519 did:key. */
  | 'DIRECTORY_OPERATION_INVALID'
  /** The canonical JSON of the operation is larger than OPERATION_MAX_BYTES. */
  | 'DIRECTORY_OPERATION_TOO_LARGE'
  /** No current rotation key signed it (or the signature is not canonical base64). */
  | 'DIRECTORY_SIGNATURE_INVALID'
  /** `prev` is not the identity's current head (a fork, a replay, a reordered log). */
  | 'DIRECTORY_PREV_MISMATCH'
  /** Another live identity holds the handle. */
  | 'DIRECTORY_HANDLE_TAKEN'
  /** The identity is revoked: nothing follows a revoke. */
  | 'DIRECTORY_REVOKED'
  /** This genesis operation was already accepted. */
  | 'DIRECTORY_DID_EXISTS'
  /** No identity with this identifier. */
  | 'DIRECTORY_DID_NOT_FOUND';

export class DirectoryError extends Error {
  constructor(
    readonly code: DirectoryErrorCode,
    message: string,
    /** The field at fault, when one is (`rotation_keys`, `services.loom.endpoint`). */
    readonly field: string | null = null,
  ) {
    super(message);
    this.name = 'DirectoryError';
  }
}
