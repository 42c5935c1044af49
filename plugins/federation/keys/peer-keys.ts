/**
 * Which keys speak for a peer, and following its rotations (issue 35): every
 * place that checks a peer's signature (changes pages, handshake bodies,
 * pushed records, the manifest) asks here.
 *
 * A verifier tries the key it pinned for the peer (its DID's own key until
 * the peer first rotates) and the peer's previous keys still inside their
 * overlap. When none verifies, it refetches the peer's manifest once and
 * accepts a new key only through the countersignature chain from the pinned
 * key (manifest.ts, key-chain.ts); following it writes one
 * `federation.peer_key.v1` record (the new pin). A forged rotation, which the
 * pinned key never countersigned, is refused with KEY_CHAIN_INVALID and
 * writes nothing; a signature by a previous key whose `expired_ts` has passed
 * is refused with KEY_EXPIRED, refetch or not.
 */
import { verifyManifest } from '../manifest.js';
import { parsePeerJson } from '../peer-json.js';
import { acceptableKeys, genesisChain, type KeyChain } from './key-chain.js';
import type { PeerKeyTable } from './peer-key-records.js';
import { untilAborted } from '../until-aborted.js';

export interface PeerKeysDeps {
  readonly pins: () => PeerKeyTable;
  /** Records the new pin (the fold has it when this resolves). */
  readonly pin: (did: string, chain: KeyChain) => Promise<void>;
  /** Where the peer serves its manifest, when this instance knows it (a pair's peer URL). */
  readonly urlFor: (did: string) => string | null;
  readonly strictManifests: () => boolean;
  readonly now: () => number;
  /** GETs a URL as JSON (tests replace it); default: fetch with a 10 s timeout. */
  readonly fetchJson?: (url: string) => Promise<{ status: number; body: unknown }>;
}

export type KeyVerdict =
  | { readonly ok: true; readonly key: string }
  | { readonly ok: false; readonly code: 'KEY_EXPIRED' | 'KEY_CHAIN_INVALID' | 'SIGNATURE_INVALID'; readonly message: string };

/** A refetch is shared by the verifications that need it at once, and not repeated for a second. */
const REFETCH_REUSE_MS = 1_000;

async function defaultFetchJson(url: string): Promise<{ status: number; body: unknown }> {
  const signal = AbortSignal.timeout(10_000);
  const answer = await untilAborted(fetch(url, { headers: { accept: 'application/json' }, signal }), signal);
  const text = await untilAborted(answer.text(), signal);
  return { status: answer.status, body: answer.ok && text.length > 0 ? parsePeerJson(text, `the answer to ${new URL(url).pathname}`) : null };
}

export class PeerKeys {
  private readonly refetches = new Map<string, { at: number; run: Promise<KeyVerdict> }>();

  constructor(private readonly deps: PeerKeysDeps) {}

  /** The chain this instance trusts for `did` now. */
  chain(did: string): KeyChain {
    return this.deps.pins().get(did) ?? genesisChain(did);
  }

  /** The key pinned for `did`: the one a rotation must descend from. */
  pinned(did: string): string {
    return this.chain(did).current;
  }

  /** The keys whose signatures count for `did` now, the pinned one first. */
  acceptable(did: string): string[] {
    return acceptableKeys(this.chain(did), this.deps.now());
  }

  /** Checks with the keys in hand only (no network): which one verifies, or why none counts. */
  match(did: string, check: (key: string) => boolean, chain: KeyChain = this.chain(did)): KeyVerdict {
    const now = this.deps.now();
    for (const key of acceptableKeys(chain, now)) if (check(key)) return { ok: true, key };
    const expired = chain.previous.find((link) => now >= link.expired_ts && check(link.key));
    if (expired) return { ok: false, code: 'KEY_EXPIRED', message: `signed by ${expired.key}, a previous key of ${did} that expired at ${new Date(expired.expired_ts).toISOString()}` };
    return { ok: false, code: 'SIGNATURE_INVALID', message: `the signature verifies against no key of ${did} in force` };
  }

  /**
   * `check` against the keys in force for `did`; when none verifies (and the
   * key is not merely expired), the peer's manifest is refetched once from
   * `url` (default: urlFor) and, if its chain descends from the pinned key,
   * pinned and tried.
   */
  async verify(did: string, check: (key: string) => boolean, url: string | null = this.deps.urlFor(did)): Promise<KeyVerdict> {
    const first = this.match(did, check);
    if (first.ok || first.code === 'KEY_EXPIRED' || url === null) return first;
    const refetched = await this.refetch(did, url);
    if (!refetched.ok) return refetched;
    return this.match(did, check);
  }

  /**
   * Follows a manifest already verified against the pinned key
   * (verifyManifest with `pinned`): records the new pin when its key in force
   * differs from the one pinned. Nothing is written otherwise.
   */
  async follow(did: string, chain: KeyChain): Promise<void> {
    const pinned = this.chain(did);
    if (pinned.current === chain.current && pinned.previous.length === chain.previous.length) return;
    await this.deps.pin(did, chain);
  }

  /** Refetches `did`'s manifest from `url` and follows it; KEY_CHAIN_INVALID for a rotation the pinned key did not countersign. */
  refetch(did: string, url: string): Promise<KeyVerdict> {
    const now = this.deps.now();
    const recent = this.refetches.get(did);
    if (recent && now - recent.at < REFETCH_REUSE_MS) return recent.run;
    const run = this.load(did, url);
    this.refetches.set(did, { at: now, run });
    return run;
  }

  private async load(did: string, url: string): Promise<KeyVerdict> {
    let answer: { status: number; body: unknown };
    try {
      answer = await (this.deps.fetchJson ?? defaultFetchJson)(`${url.replace(/\/+$/, '')}/.well-known/service`);
    } catch (error) {
      return { ok: false, code: 'SIGNATURE_INVALID', message: `the signature verifies against no key of ${did} in force, and its manifest could not be refetched (${(error as Error).message})` };
    }
    const manifest = (answer.body as { federation_manifest?: unknown } | null)?.federation_manifest;
    if (answer.status !== 200 || manifest === undefined) return { ok: false, code: 'SIGNATURE_INVALID', message: `the signature verifies against no key of ${did} in force, and ${url} serves no manifest (HTTP ${answer.status})` };
    const verdict = verifyManifest(manifest, { now: this.deps.now(), strict: this.deps.strictManifests(), expectedDid: did, pinned: this.pinned(did) });
    if (!verdict.ok) {
      return { ok: false, code: verdict.reason === 'key_chain_invalid' ? 'KEY_CHAIN_INVALID' : 'SIGNATURE_INVALID', message: `the refetched manifest of ${did} is refused: ${verdict.message}` };
    }
    await this.follow(did, verdict.keys);
    return { ok: true, key: verdict.keys.current };
  }
}
