/**
 * The one error type core and plugins throw. HTTP-free: the server edge maps
 * it to the `{object: "error", code, message}` envelope with the catalogue's status.
 */
import { errorStatus, errorType, type ErrorCode } from './codes.js';

export class LoomError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly type: string | undefined;
  /** Extra envelope members some codes carry (e.g. `{expected_hash, current_hash}`). */
  readonly details: Readonly<Record<string, unknown>> | undefined;
  /**
   * Structured facts for in-process readers (a plugin that handles the
   * refusal), never sent: the envelope keeps the spec's members, and a fact
   * may be something only this caller's code may know (e.g. the record
   * holding a DUPLICATE_CLOCK slot, for federation's quarantine). Ingest's
   * INVALID_SHAPE names the failing `path` (`clock`, `parents[2]`, `id`), and
   * `reason: 'id_mismatch'` with `computed_id` when a claimed id is not the
   * content's hash. Read facts, never parse messages.
   */
  readonly facts: Readonly<Record<string, unknown>>;

  constructor(code: ErrorCode, message: string, details?: Record<string, unknown>, facts?: Record<string, unknown>) {
    super(message);
    this.name = 'LoomError';
    this.code = code;
    this.status = errorStatus(code);
    this.type = errorType(code);
    this.details = details;
    this.facts = Object.freeze({ ...facts });
  }

  toEnvelope(): ErrorEnvelope {
    return {
      object: 'error',
      ...(this.type ? { type: this.type } : {}),
      code: this.code,
      message: this.message,
      ...(this.details ?? {}),
    };
  }
}

export interface ErrorEnvelope {
  object: 'error';
  type?: string;
  code: string;
  message: string;
  [extra: string]: unknown;
}

export function isLoomError(value: unknown): value is LoomError {
  return value instanceof LoomError;
}
