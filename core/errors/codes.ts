/**
 * The one error catalogue: every spec §7 code with its HTTP status and optional
 * `type`. Statuses the spec leaves open are chosen here and recorded in
 * docs/decisions.md; every layer reuses them.
 */
export const ERROR_CATALOGUE = {
  AUTH_REQUIRED: { status: 401 },
  GRANT_REVOKED: { status: 401 },
  GRANT_EXPIRED: { status: 401 },
  RECREDENTIAL_REFUSED: { status: 401 },
  SCOPE_FORBIDDEN: { status: 403 },
  DID_CLAIM_DENIED: { status: 403 },
  FORBIDDEN: { status: 403 },
  NAMESPACE_REJECTED: { status: 403, type: 'invalid_request_error' },
  INVALID_SHAPE: { status: 400 },
  // Status not shown in the spec: 409 Conflict, the client increments its clock and retries.
  DUPLICATE_CLOCK: { status: 409 },
  // Not in the spec: a resend of a stored record (same id) whose unhashed judged_by differs; the stored value stands.
  JUDGED_BY_CONFLICT: { status: 409 },
  INVALID_QUERY: { status: 400 },
  INTERNAL: { status: 500 },
  EMPTY_QUERY: { status: 400 },
  EMBEDDER_FAILED: { status: 502 },
  SEMANTIC_SEARCH_DISABLED: { status: 503 },
  BOOTSTRAP_CLOSED: { status: 409 },
  ROTATION_REQUIRES_PROOF: { status: 409 },
  CREDENTIAL_NOT_FOUND: { status: 404 },
  PASSKEY_NOT_ACCEPTED: { status: 409 },
  LEASE_HELD_ELSEWHERE: { status: 503 },
  NO_LIVE_GRANT: { status: 409 },
  RATE_LIMITED: { status: 429 },
  WORK_PROMPT_UNRESOLVED: { status: 422 },
  DEFINE_FIELD_INERT: { status: 400 },
  INVALID_BODY: { status: 422 },
  INVALID_DEFINITION: { status: 422 },
  GRANT_REFUSED: { status: 422 },
  MODEL_UNKNOWN: { status: 422 },
  TOOL_NOT_DECLARED: { status: 422 },
  MISSING_FIELD: { status: 400 },
  NOTHING_TO_CHANGE: { status: 400 },
  REPO_UNKNOWN: { status: 400 },
  NO_CASES: { status: 400 },
  NO_RUNS_UNDER_DEFINITION: { status: 400 },
  IMPORT_FAILED: { status: 400 },
  VERDICT_SELF_JUDGMENT: { status: 400 },
  READS_NOT_COVERED: { status: 403 },
  DAILY_CAP_TOO_WIDE: { status: 403 },
  TOOL_NOT_IN_REACH: { status: 403 },
  WRITE_KIND_NOT_ADMITTED: { status: 403 },
  RETIRE_FORBIDDEN: { status: 403 },
  OWNER_ONLY: { status: 403 },
  RUN_ACTOR_NOT_COVERED: { status: 403 },
  BLUEPRINT_UNSIGNED: { status: 403 },
  NO_SUCH_ACTOR: { status: 404 },
  ACTOR_UNKNOWN: { status: 404 },
  VERSION_UNKNOWN: { status: 404 },
  MEMORY_NOT_FOUND: { status: 404 },
  ACTOR_RETIRED: { status: 409 },
  ASSISTANT_WOULD_GO_MUTE: { status: 409 },
  PLAN_HASH_MISMATCH: { status: 409 },
  PLAN_CONSENT_REQUIRED: { status: 428 },
  ADMISSION_CEILING: { status: 503 },
  // Status not shown: 503, the service cannot run a loop until a provider is configured.
  WORK_NO_PROVIDER: { status: 503 },
  // The spec shows these only as preview `denial_reason` values; a start past a daily cap is refused with them, 429 (try again tomorrow).
  // Not in the spec: a message to a run that already has its outcome; a new run reads the old one's thread instead.
  RUN_ENDED: { status: 409 },
  WORK_DAILY_CAP_EXCEEDED: { status: 429 },
  WORK_DAILY_COUNT_EXCEEDED: { status: 429 },
  // Decision refusals, status not shown: 400, the request names a choice the ask does not allow.
  BAD_OPTION: { status: 400 },
  OTHER_NOT_ALLOWED: { status: 400 },
  MULTI_NOT_ALLOWED: { status: 400 },
  PROVIDED_VALUE_REQUIRED: { status: 400 },
  // ---- decisions (issue 34) ----
  // Not in the spec: an answer to a decision no longer pending (answered, cancelled, its run ended), or a run with none open; the first answer stands.
  DECISION_CLOSED: { status: 409 },
  // ---- end decisions ----
  // Codes the spec leaves unnamed, used by the HTTP edge (docs/decisions.md).
  NOT_FOUND: { status: 404 },
  METHOD_NOT_ALLOWED: { status: 405 },
  PAYLOAD_TOO_LARGE: { status: 413 },
  UNSUPPORTED_MEDIA_TYPE: { status: 415 },
  SERVICE_UNAVAILABLE: { status: 503 },
  // Refusals of the connection layer, before or outside any route (core/server/client-error.ts, connection-guard.ts).
  MALFORMED_REQUEST: { status: 400 },
  REQUEST_TIMEOUT: { status: 408 },
  URI_TOO_LONG: { status: 414 },
  HEADERS_TOO_LARGE: { status: 431 },
  TOO_MANY_CONNECTIONS: { status: 429 },
  // A mint or rotation for a revoked service account (spec §3: future mints are blocked).
  SERVICE_ACCOUNT_REVOKED: { status: 409 },
  // Membership invites (prior art; docs/decisions.md): an unknown or wrong invite token, then why a known one no longer works.
  INVITE_NOT_FOUND: { status: 404 },
  INVITE_EXPIRED: { status: 410 },
  INVITE_REVOKED: { status: 410 },
  INVITE_EXHAUSTED: { status: 410 },
  // A label held by a current member, claimed by an invite not pinned to it or by an adoption.
  MEMBER_LABEL_TAKEN: { status: 409 },
  // An account binding on an instance that declares no account verifier (the counterpart of PASSKEY_NOT_ACCEPTED).
  ACCOUNT_NOT_ACCEPTED: { status: 409 },
  // RECONCILE's bounded dispatch queue is full (POST /v1/dispatch); retry later.
  DISPATCH_QUEUE_FULL: { status: 503 },
  RANGE_NOT_SATISFIABLE: { status: 416 },
  INVALID_PATH: { status: 400 },
  PATH_NOT_FOUND: { status: 404 },
  PATH_EXISTS: { status: 409 },
  NOT_A_DIRECTORY: { status: 409 },
  IS_A_DIRECTORY: { status: 409 },
  DIRECTORY_NOT_EMPTY: { status: 409 },
  MOVE_INTO_ITSELF: { status: 409 },
  PRECONDITION_FAILED: { status: 409 },
  UPLOAD_NOT_FOUND: { status: 404 },
  UPLOAD_INCOMPLETE: { status: 409 },
  INVALID_CONTENT_RANGE: { status: 400 },
  CONTENT_LENGTH_MISMATCH: { status: 400 },
  CONTENT_HASH_MISMATCH: { status: 422 },
  QUOTA_EXCEEDED: { status: 507 },
  STORAGE_FULL: { status: 507 },
  BLOB_NOT_FOUND: { status: 404 },
  SIGNED_URL_INVALID: { status: 403 },
  SIGNED_URL_EXPIRED: { status: 403 },
  // Federation (spec §4.13, §7: an unsigned federation record request is a 422).
  FEDERATION_SIGNATURE_REQUIRED: { status: 422 },
  FEDERATION_SIGNATURE_INVALID: { status: 422 },
  INVALID_CURSOR: { status: 400 },
  PAIR_NOT_FOUND: { status: 404 },
  // Creating a sync pair beyond the instance's maxPairs: a conflict with its state (delete a pair first), not a malformed request.
  PAIR_LIMIT_REACHED: { status: 409 },
  FEDERATION_DISABLED: { status: 503 },
  // Online backup on a driver that takes none (PostgreSQL: use the database's own tools).
  BACKUP_NOT_SUPPORTED: { status: 501 },
  // ---- chat proxy (issue 34): a provider's failure relayed with the status Anthropic's clients expect (docs/decisions.md) ----
  PROVIDER_INVALID_REQUEST: { status: 400 },
  PROVIDER_RATE_LIMITED: { status: 429 },
  PROVIDER_OVERLOADED: { status: 529 },
  PROVIDER_FAILED: { status: 502 },
  // ---- end chat proxy ----
  // ---- MCP (plugins/mcp; docs/decisions.md) ----
  // A present Origin that is neither this server's own loopback origin nor a configured one (DNS rebinding).
  ORIGIN_NOT_ALLOWED: { status: 403 },
  // An MCP-Protocol-Version header naming a revision this server does not speak (Streamable HTTP: 400).
  UNSUPPORTED_PROTOCOL_VERSION: { status: 400 },
  // The MCP client does not accept both application/json and text/event-stream (Streamable HTTP).
  NOT_ACCEPTABLE: { status: 406 },
  // ---- end MCP ----
  // ---- federation handshake (issue 35): the pairing handshake refuses with these (docs/decisions.md) ----
  // The signed manifest or body does not verify against the initiator's DID, or the DID is not one this instance accepts: an authentication failure.
  PAIR_SIGNATURE_INVALID: { status: 401 },
  // The signed `created` is more than 60 s from this instance's clock: the body cannot prove it is fresh.
  PAIR_REQUEST_STALE: { status: 401 },
  // The nonce was already used (spec: a replayed nonce is 410 Gone).
  PAIR_NONCE_REPLAYED: { status: 410 },
  // The body names another responder: refused so a signed request cannot be forwarded to a third instance.
  PAIR_MISDIRECTED: { status: 421 },
  // This instance's consent policy takes no pair requests (invite-only, closed, or no auth plugin to mint tokens).
  PAIR_REQUESTS_CLOSED: { status: 403 },
  // The pair is revoked (terminal) or not in a state the operation needs.
  PAIR_REVOKED: { status: 409 },
  PAIR_STATE_CONFLICT: { status: 409 },
  // The initiator's side: the peer could not be reached, or answered something that does not verify.
  PAIR_HANDSHAKE_FAILED: { status: 502 },
  // ---- end federation handshake ----
  // ---- did:sync directory (issue 35): plugins/federation/directory (docs/decisions.md) ----
  // The directory is off (the directory_enabled configuration record): there is no directory here.
  DIRECTORY_DISABLED: { status: 404 },
  // Not an operation: field set, a field's syntax, a key that is not an Ed25519 did:key, the wrong route for its type.
  DIRECTORY_OPERATION_INVALID: { status: 422 },
  // The operation's canonical JSON is over the cap (4,096 bytes).
  DIRECTORY_OPERATION_TOO_LARGE: { status: 413 },
  // Signed by none of the identity's current rotation keys, or a signature that is not canonical base64.
  DIRECTORY_SIGNATURE_INVALID: { status: 422 },
  // prev is not the identity's current head: the chain never forks.
  DIRECTORY_PREV_MISMATCH: { status: 409 },
  DIRECTORY_HANDLE_TAKEN: { status: 409 },
  DIRECTORY_DID_EXISTS: { status: 409 },
  // The identity is revoked: terminal, its document is gone and nothing may follow.
  DIRECTORY_REVOKED: { status: 410 },
  DIRECTORY_DID_NOT_FOUND: { status: 404 },
  DIRECTORY_HANDLE_NOT_FOUND: { status: 404 },
  // ---- end did:sync directory ----
  // ---- federation pair lifecycle (issue 35, part 2) ----
  // This side paused the pair: the peer's token reads nothing until it is resumed (reversible, unlike a revocation).
  PAIR_PAUSED: { status: 409 },
  // ---- end federation pair lifecycle ----
  // ---- federation key rotation (issue 35) ----
  // A peer's key chain does not verify, or does not descend from the key this instance pinned for it (a forged rotation).
  KEY_CHAIN_INVALID: { status: 401 },
  // Signed by a previous key of the peer whose expired_ts has passed.
  KEY_EXPIRED: { status: 401 },
  // This instance cannot rotate its key here: a shared log (every server holds the key) or no data directory to keep the new key in.
  KEY_ROTATION_UNAVAILABLE: { status: 409 },
  // ---- end federation key rotation ----
  // ---- relay mailbox (issue 35): plugins/federation/relay (docs/decisions.md) ----
  // This instance serves no mailboxes (federation.relay_mailbox serve is off): there is no mailbox here.
  MAILBOX_DISABLED: { status: 404 },
  // The deposited body is not a sealed envelope for this receiver: shape, id not the hash of its content, or a signature that does not verify.
  MAILBOX_ENVELOPE_INVALID: { status: 422 },
  // The receiver's queue is at the relay's cap: storage for it is exhausted until it acks or envelopes expire (507 Insufficient Storage, not 429: sending slower does not help).
  MAILBOX_FULL: { status: 507 },
  // A mailbox read or ack without a valid proof signed by a receiver's instance key (missing, stale beyond ±60 s, or not verifying).
  MAILBOX_AUTH_INVALID: { status: 401 },
  // A valid proof, but by another DID than the mailbox's: a relay serves a mailbox only to its receiver.
  MAILBOX_NOT_YOURS: { status: 403 },
  // ---- end relay mailbox ----
} as const satisfies Record<string, { status: number; type?: string }>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

export function errorStatus(code: ErrorCode): number {
  return ERROR_CATALOGUE[code].status;
}

export function errorType(code: ErrorCode): string | undefined {
  const entry: { status: number; type?: string } = ERROR_CATALOGUE[code];
  return entry.type;
}

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(ERROR_CATALOGUE, value);
}
