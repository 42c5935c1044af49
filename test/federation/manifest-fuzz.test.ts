/**
 * A mutation fuzzer over signed federation manifests (issue 35, goal 3, the
 * manifest part; handshake-fuzz.http.test.ts and directory-fuzz.test.ts are
 * the other two): the manifest of an instance whose key was rotated twice
 * (so it carries a `keys` chain with two countersigned hand-overs) is
 * mutated at any depth, one way per case (a member or element replaced by
 * any JSON value, removed, or added; a string with one character changed; a
 * number moved), and verified as a peer verifies it, pinned to the DID's
 * own key. Every mutation that changes the canonical form must be refused
 * with a typed reason; none may be accepted, and none may throw.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { canonicalJson } from '../../core/records/canonical-json.js';
import { FEDERATION_PROTOCOL_VERSION } from '../../plugins/federation/config.js';
import { InstanceKey } from '../../plugins/federation/instance-key.js';
import { buildFederationManifest, signManifest, verifyManifest } from '../../plugins/federation/manifest.js';

const CASES = Number(process.env['LOOM_MANIFEST_FUZZ_CASES'] ?? 10000);
const REASONS = ['malformed', 'signature_invalid', 'expired', 'did_mismatch', 'key_chain_invalid'];
const HOUR = 3_600_000;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Path = Array<string | number>;

/** Every path in the value, the root excluded. */
function paths(value: Json, at: Path = []): Path[] {
  const out: Path[] = [];
  if (Array.isArray(value)) value.forEach((item, i) => out.push([...at, i], ...paths(item, [...at, i])));
  else if (value !== null && typeof value === 'object') for (const [key, item] of Object.entries(value)) out.push([...at, key], ...paths(item, [...at, key]));
  return out;
}

/** A copy of `root` with the value at `path` passed through `change` (undefined removes it). */
function edit(root: Json, path: Path, change: (current: Json) => Json | undefined): Json {
  const copy = structuredClone(root);
  let parent = copy as Record<string | number, Json>;
  for (const step of path.slice(0, -1)) parent = parent[step] as Record<string | number, Json>;
  const last = path[path.length - 1]!;
  const next = change(parent[last]!);
  if (next === undefined) {
    if (Array.isArray(parent)) (parent as Json[]).splice(last as number, 1);
    else delete parent[last];
  } else {
    parent[last] = next;
  }
  return copy;
}

describe('signed federation manifests under a mutation fuzzer (issue 35, goal 3)', function () {
  this.timeout(180_000);
  let dir: string;
  let manifest: Json;
  let did: string;
  const now = Date.now();

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'loom-manifest-fuzz-'));
    const key = await InstanceKey.loadOrCreate(dir);
    await key.rotate(now - 2 * HOUR, 48 * HOUR);
    await key.rotate(now - HOUR, 48 * HOUR);
    did = key.did;
    const unsigned = buildFederationManifest({ did, keys: key.chain(), version: 'fuzz', federationProtocolVersion: FEDERATION_PROTOCOL_VERSION, baseUrl: 'http://127.0.0.1:9', kinds: ['task.v1'], namespaces: ['acme'] });
    manifest = signManifest(key, unsigned, { now, ttlMs: 24 * HOUR }) as unknown as Json;
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('accepts the genuine manifest, with its two hand-overs', () => {
    const verdict = verifyManifest(manifest, { now, strict: true, expectedDid: did, pinned: did });
    expect(verdict.ok, JSON.stringify(verdict)).to.equal(true);
    expect((manifest as any).keys.previous).to.have.length(2);
  });

  it(`refuses every one of ${CASES} mutations with a typed reason, accepting none`, () => {
    const all = paths(manifest);
    const original = canonicalJson(manifest);
    const refused = new Map<string, number>();
    let cases = 0;
    const mutation = fc.tuple(fc.constantFrom(...all), fc.nat(5), fc.jsonValue({ maxDepth: 2 }), fc.nat(), fc.integer({ min: 33, max: 126 }), fc.string({ minLength: 1, maxLength: 10 })).map(([path, op, any, at, code, name]) => {
      switch (op) {
        case 0:
          return edit(manifest, path, () => any as Json);
        case 1:
          return edit(manifest, path, () => undefined);
        case 2:
          return edit(manifest, path, (current) => (current !== null && typeof current === 'object' && !Array.isArray(current) ? { ...current, [name]: any as Json } : Array.isArray(current) ? [...current, any as Json] : current));
        case 3:
          return edit(manifest, path, (current) => (typeof current === 'string' && current.length > 0 ? current.slice(0, at % current.length) + String.fromCharCode(code) + current.slice((at % current.length) + 1) : any as Json));
        case 4:
          return edit(manifest, path, (current) => (typeof current === 'number' ? current + 1 + (at % 1000) : any as Json));
        default:
          // The same field twice deep: swap with another path's value.
          return edit(manifest, path, () => structuredClone(all[at % all.length]!.reduce<any>((value, step) => value[step], manifest)) as Json);
      }
    });
    fc.assert(
      fc.property(mutation, (mutated) => {
        let text: string;
        try {
          text = canonicalJson(mutated);
        } catch {
          text = '';
        }
        if (text === original) return; // a no-op (the same value written back)
        cases++;
        const verdict = verifyManifest(mutated, { now, strict: true, expectedDid: did, pinned: did });
        expect(verdict.ok, `accepted: ${JSON.stringify(mutated).slice(0, 400)}`).to.equal(false);
        if (verdict.ok) return;
        expect(REASONS).to.include(verdict.reason);
        refused.set(verdict.reason, (refused.get(verdict.reason) ?? 0) + 1);
      }),
      { numRuns: Math.ceil(CASES * 1.15), seed: Number(process.env['LOOM_FUZZ_SEED'] ?? 35) },
    );
    expect(cases).to.be.at.least(CASES);
    // The mutations reach the chain and the signature, not only the shape.
    expect(refused.get('key_chain_invalid') ?? 0, JSON.stringify([...refused])).to.be.greaterThan(0);
    expect(refused.get('signature_invalid') ?? 0, JSON.stringify([...refused])).to.be.greaterThan(0);
  });
});
