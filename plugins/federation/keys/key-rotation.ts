/**
 * `loom federation rotate-key` (POST /v1/federation/keys/rotate): a new key
 * signs for the instance from now on; the key it replaces countersigns the
 * hand-over and stays valid for the overlap (`expired_ts` = now + overlap).
 * The keyring is durable before the new key signs anything
 * (instance-key.ts); the rotation is then recorded on `th_federation_pairs`
 * (`federation.key_rotation.v1`) and announced by the next manifest, which
 * re-signs at once.
 *
 * Refused (KEY_ROTATION_UNAVAILABLE) on a shared log, where every server
 * holds the key file and one server's rotation would leave the others signing
 * with the old key, and for a key kept in no directory.
 */
import { LoomError } from '../../../core/errors/loom-error.js';
import type { JsonObject } from '../../../core/records/json.js';
import type { InstanceKey } from '../instance-key.js';
import { keyStanding } from './key-chain.js';

export const KEY_ROTATION_KIND = 'federation.key_rotation.v1';

export interface KeyRotationDeps {
  readonly key: InstanceKey;
  readonly sharedLog: boolean;
  /** The default overlap (the option keyOverlapSeconds). */
  readonly overlapMs: number;
  readonly now: () => number;
  readonly record: (body: JsonObject) => Promise<void>;
}

export interface KeysView {
  readonly object: 'federation_keys';
  readonly did: string;
  readonly key: string;
  readonly previous: ReadonlyArray<{ key: string; succeeded_by: string; rotated_at: string; expired_ts: number; expires_at: string; state: 'overlap' | 'expired' }>;
  readonly overlap_seconds: number;
  readonly rotatable: boolean;
}

export class KeyRotation {
  constructor(private readonly deps: KeyRotationDeps) {}

  private unavailable(): string | null {
    if (this.deps.sharedLog) return 'this instance runs on a shared log: every server holds the instance key, so one cannot rotate it alone';
    if (!this.deps.key.persistent) return 'the instance key is kept in no directory, so a new key could not survive a restart';
    return null;
  }

  view(): KeysView {
    const { key, now } = this.deps;
    const chain = key.chain();
    return {
      object: 'federation_keys',
      did: key.did,
      key: chain.current,
      previous: chain.previous.map((link) => ({
        key: link.key,
        succeeded_by: link.succeeded_by,
        rotated_at: new Date(link.rotated_at).toISOString(),
        expired_ts: link.expired_ts,
        expires_at: new Date(link.expired_ts).toISOString(),
        state: keyStanding(chain, link.key, now()) === 'overlap' ? ('overlap' as const) : ('expired' as const),
      })),
      overlap_seconds: Math.round(this.deps.overlapMs / 1000),
      rotatable: this.unavailable() === null,
    };
  }

  async rotate(input: { overlap_seconds?: number | undefined }, by: string): Promise<KeysView & { rotated_from: string }> {
    const problem = this.unavailable();
    if (problem) throw new LoomError('KEY_ROTATION_UNAVAILABLE', problem);
    const overlapMs = input.overlap_seconds !== undefined ? input.overlap_seconds * 1000 : this.deps.overlapMs;
    const rotated = await this.deps.key.rotate(this.deps.now(), overlapMs);
    await this.deps.record({ kind: KEY_ROTATION_KIND, did: this.deps.key.did, key: rotated.key, previous: { ...rotated.previous }, by });
    return { ...this.view(), rotated_from: rotated.previous.key };
  }
}
