/**
 * A mutation fuzzer over did:sync directory operations (issue 35 goal 3, the
 * directory part), in process (Hapi's inject, no sockets): three operations
 * the directory would accept (a fresh genesis, the next update of a live
 * identity, its revoke) are mutated one way per case and submitted to the
 * route each belongs to. Mutations: a field replaced by any JSON value, a
 * field removed or added, one character of a string changed (top level or
 * inside rotation_keys, verification_methods, services), a bit of the
 * signature flipped, the signature's non-canonical base64 twin, a signature
 * by a stranger key or a rotated-out key, an extra or missing field or an
 * oversize body re-signed with the right key, a replay of an accepted
 * operation, a prev pointing back into the chain, an update of an identity
 * whose genesis never came (a reordered log). Every case must be refused
 * with a DIRECTORY_* code of the catalogue, nothing accepted, the store's
 * watermark unchanged; then the unmutated operations are accepted, so every
 * refusal was the mutation's doing.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { canonicalJson } from '../../core/records/canonical-json.js';
import { isErrorCode } from '../../core/errors/codes.js';
import { TH_ENGINE_CONFIG } from '../../core/records/reserved-threads.js';
import { didFromGenesisHash, operationHash, type DirectoryOperation } from '../../plugins/federation/directory/directory-operation.js';
import { newOperationKey, revokeOp, signOperation, syncOp, type OperationKey } from '../../plugins/federation/directory/operation-signer.js';
import { startServer, type StartedServer } from '../helpers/http-server.js';

type Body = Record<string, unknown>;
interface Case {
  readonly path: string;
  readonly body: unknown;
  readonly family: string;
}

const CASES = Number(process.env['LOOM_DIRECTORY_FUZZ_CASES'] ?? 5000);

describe('directory operations under a mutation fuzzer', function () {
  this.timeout(120_000);
  let server: StartedServer;
  const refusedBy = new Map<string, number>();
  const families = new Map<string, number>();

  const key = newOperationKey();
  const rotatedOut = newOperationKey();
  const stranger = newOperationKey();
  const method = newOperationKey();
  const content = (k: OperationKey, handle: string) => ({ rotation_keys: [k.did], verification_methods: { signing: method.did }, services: { loom: { type: 'LoomInstance', endpoint: 'https://loom.example.com/x' } }, handle });
  // The live identity: genesis by rotatedOut, then rotated to `key`.
  const liveGenesis = syncOp(rotatedOut, content(rotatedOut, 'live.example'), null);
  const liveRotate = syncOp(rotatedOut, content(key, 'live.example'), operationHash(liveGenesis));
  let liveSuffix = '';
  // What the directory would accept next.
  const freshKey = newOperationKey();
  const fresh = syncOp(freshKey, content(freshKey, 'fresh.example'), null);
  const next = syncOp(key, content(key, 'renamed.example'), operationHash(liveRotate));
  const revoke = revokeOp(key, operationHash(liveRotate));
  // A chain whose genesis is never sent.
  const orphanKey = newOperationKey();
  const orphanGenesis = syncOp(orphanKey, content(orphanKey, 'orphan.example'), null);
  const orphanUpdate = syncOp(orphanKey, content(orphanKey, 'orphan2.example'), operationHash(orphanGenesis));

  const inject = async (path: string, body: unknown) => {
    const answer = await server.loom.server.inject({ method: 'POST', url: path, payload: JSON.stringify(body), headers: { 'content-type': 'application/json' } });
    return { status: answer.statusCode, json: JSON.parse(answer.payload) as Record<string, unknown> };
  };

  before(async () => {
    server = await startServer({ federation: {} });
    await server.loom.server.inject({ method: 'POST', url: '/v1/records', payload: { thread: TH_ENGINE_CONFIG, actor: 'did:sync:user:operator', act: 'LEARN', body: { topic: 'directory_enabled', enabled: true }, clock: 0, data_type: 'SCALAR', parents: [] } });
    const created = await inject('/directory/genesis', liveGenesis);
    expect(created.status, JSON.stringify(created.json)).to.equal(201);
    liveSuffix = (created.json['did'] as string).slice('did:sync:'.length);
    expect((await inject(`/directory/update/${liveSuffix}`, liveRotate)).status).to.equal(200);
  });
  after(async () => {
    if (process.env['LOOM_TEST_FIGURES'] === '1') console.log(`      families: ${JSON.stringify(Object.fromEntries(families))}\n      refusals by code: ${JSON.stringify(Object.fromEntries(refusedBy))}`);
    await server?.stop();
  });

  function candidates(): Array<{ path: string; op: DirectoryOperation; signer: OperationKey }> {
    return [
      { path: '/directory/genesis', op: fresh, signer: freshKey },
      { path: `/directory/update/${liveSuffix}`, op: next, signer: key },
      { path: `/directory/revoke/${liveSuffix}`, op: revoke, signer: key },
    ];
  }

  const flipChar = (text: string, at: number, code: number) => {
    const i = at % Math.max(text.length, 1);
    return text.slice(0, i) + String.fromCharCode(code) + text.slice(i + 1);
  };
  const unsigned = (op: Body) => Object.fromEntries(Object.entries(op).filter(([k]) => k !== 'sig'));
  const resign = (signer: OperationKey, op: Body) => signOperation(signer, unsigned(op) as never) as unknown as Body;

  function arbitrary(): fc.Arbitrary<Case> {
    const options = candidates().map(({ path, op, signer }) => {
      const body = op as unknown as Body;
      const keys = Object.keys(body);
      const key$ = fc.constantFrom(...keys);
      const at = (family: string, arb: fc.Arbitrary<unknown>) => arb.map((mutated) => ({ path, body: mutated, family }));
      const strings = keys.filter((k) => typeof body[k] === 'string');
      const nestedStrings: Array<[string, (value: string) => Body]> = [];
      if ('rotation_keys' in body) {
        nestedStrings.push([(body['rotation_keys'] as string[])[0]!, (v) => ({ ...body, rotation_keys: [v] })]);
        nestedStrings.push([method.did, (v) => ({ ...body, verification_methods: { signing: v } })]);
        nestedStrings.push(['https://loom.example.com/x', (v) => ({ ...body, services: { loom: { type: 'LoomInstance', endpoint: v } } })]);
        nestedStrings.push(['LoomInstance', (v) => ({ ...body, services: { loom: { type: v, endpoint: 'https://loom.example.com/x' } } })]);
      }
      const list: fc.Arbitrary<Case>[] = [
        at('replace-field', fc.tuple(key$, fc.jsonValue({ maxDepth: 2 })).map(([k, v]) => ({ ...body, [k]: v }))),
        at('remove-field', key$.map((k) => Object.fromEntries(Object.entries(body).filter(([name]) => name !== k)))),
        at('add-field', fc.tuple(fc.string({ minLength: 1, maxLength: 12 }).filter((k) => !(k in body)), fc.jsonValue({ maxDepth: 1 })).map(([k, v]) => ({ ...body, [k]: v }))),
        at('flip-char', fc.tuple(fc.constantFrom(...strings), fc.nat(), fc.integer({ min: 32, max: 126 })).map(([k, i, c]) => ({ ...body, [k]: flipChar(body[k] as string, i, c) }))),
        at('flip-sig-bit', fc.nat({ max: 511 }).map((bit) => {
          const sig = Buffer.from(body['sig'] as string, 'base64');
          sig[bit >> 3]! ^= 1 << (bit & 7);
          return { ...body, sig: sig.toString('base64') };
        })),
        at('sig-twin', fc.constant({ ...body, sig: `${(body['sig'] as string).slice(0, 85)}${String.fromCharCode((body['sig'] as string).charCodeAt(85) ^ 1)}==` })),
        at('wrong-key', fc.constantFrom(stranger, method, ...(signer === key ? [rotatedOut] : [])).map((other) => resign(other, body))),
        at('resigned-extra-field', fc.tuple(fc.string({ minLength: 1, maxLength: 12 }).filter((k) => !(k in body)), fc.jsonValue({ maxDepth: 1 })).map(([k, v]) => resign(signer, { ...body, [k]: v }))),
        at('resigned-missing-field', key$.filter((k) => k !== 'sig').map((k) => resign(signer, Object.fromEntries(Object.entries(body).filter(([name]) => name !== k))))),
        at('resigned-oversize', fc.integer({ min: 4200, max: 20_000 }).map((n) => resign(signer, 'rotation_keys' in body ? { ...body, services: { big: { type: 'X', endpoint: `https://e.example/${'a'.repeat(n)}` } } } : { ...body, prev: 'a'.repeat(n) }))),
      ];
      if (nestedStrings.length > 0) {
        list.push(at('flip-nested-char', fc.tuple(fc.constantFrom(...nestedStrings), fc.nat(), fc.integer({ min: 32, max: 126 })).map(([[text, put], i, c]) => put(flipChar(text, i, c)))));
      }
      if (body['prev'] !== null) list.push(at('prev-back', fc.constant({ ...body, prev: operationHash(liveGenesis) })));
      return fc.oneof(...list);
    });
    const replays = fc.constantFrom<Case>(
      { path: '/directory/genesis', body: liveGenesis, family: 'replay' },
      { path: `/directory/update/${liveSuffix}`, body: liveRotate, family: 'replay' },
      { path: `/directory/update/${didFromGenesisHash(operationHash(orphanGenesis)).slice('did:sync:'.length)}`, body: orphanUpdate, family: 'reordered' },
      { path: '/directory/update/' + liveSuffix, body: revoke, family: 'wrong-route' },
      { path: '/directory/revoke/' + liveSuffix, body: next, family: 'wrong-route' },
      { path: '/directory/genesis', body: next, family: 'wrong-route' },
    );
    return fc.oneof({ arbitrary: fc.oneof(...options), weight: 20 }, { arbitrary: replays, weight: 1 });
  }

  it(`refuses every one of ${CASES} mutated operations with a typed DIRECTORY_* error; the watermark never moves`, async () => {
    const before = await server.loom.engine.store.watermark();
    const originals = new Set(candidates().map(({ op }) => canonicalJson(op)));
    let cases = 0;
    let accepted = 0;
    await fc.assert(
      fc.asyncProperty(arbitrary(), async ({ path, body, family }) => {
        let text: string;
        try {
          text = canonicalJson(body);
        } catch {
          text = String(Math.random());
        }
        if (originals.has(text) && family !== 'wrong-route') return;
        cases++;
        families.set(family, (families.get(family) ?? 0) + 1);
        const answer = await inject(path, body);
        if (answer.status < 400) accepted++;
        const code = answer.json['code'] as string;
        expect(answer.status, `${family}: ${answer.status} ${JSON.stringify(answer.json).slice(0, 300)}`).to.be.within(400, 499);
        expect(isErrorCode(code) && code.startsWith('DIRECTORY_'), `${family}: ${code}`).to.equal(true);
        refusedBy.set(code, (refusedBy.get(code) ?? 0) + 1);
      }),
      { numRuns: Math.ceil(CASES * 1.02), seed: Number(process.env['LOOM_FUZZ_SEED'] ?? 35) },
    );
    expect(accepted).to.equal(0);
    expect(cases).to.be.at.least(CASES);
    expect(await server.loom.engine.store.watermark()).to.equal(before);
    // The unmutated operations were acceptable all along.
    expect((await inject('/directory/genesis', fresh)).status).to.equal(201);
    expect((await inject(`/directory/update/${liveSuffix}`, next)).status).to.equal(200);
    expect((await inject(`/directory/revoke/${liveSuffix}`, revokeOp(key, operationHash(next)))).status).to.equal(200);
  });
});
