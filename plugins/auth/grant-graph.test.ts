/**
 * The delegation graph (spec §5.4) directly, without a log: random grant trees
 * checked against a small reference model written here (not the graph's own
 * helpers), and the rules one at a time — attenuation of caveats, max_depth,
 * max_fanout, cascading revocation, expiry along the chain, the ingest door's
 * ancestry check (rules 6, 7) and rule 8's principal resolution.
 */
import { expect } from 'chai';
import fc from 'fast-check';
import { scopesWithin } from '../../core/access/scopes.js';
import { ancestryProblem, CAVEAT_NAMES, GrantGraph, MAX_CHAIN_HOPS, type CaveatName, type Caveats, type GrantFields, type GrantStanding } from './grant-graph.js';

const TH = 'th_' + 'ab'.repeat(32);
const SCOPE_POOL = ['admin', 'records:read', 'records:write', 'threads:write', 'config:read', 'namespace:acme:read', 'namespace:acme/eu:read', `thread:${TH}:read`] as const;

/** A fixed instant every test reckons from. */
const T0 = Date.parse('2030-01-01T00:00:00.000Z');
const MIN = 60_000;
const iso = (ms: number) => new Date(ms).toISOString();
/** Grant ids: 64 lowercase hex, as record ids are. */
const gid = (n: number) => n.toString(16).padStart(64, '0');

interface Spec {
  scopes?: readonly string[];
  caveats?: Caveats;
  expiresMs?: number;
  aud?: string;
  guard?: string | null;
  label?: string | null;
}

function fieldsOf(chain: readonly string[], spec: Spec = {}): GrantFields {
  return {
    scopes: spec.scopes ?? ['records:read', 'records:write'],
    caveats: spec.caveats ?? {},
    expires_at: iso(spec.expiresMs ?? T0 + 24 * 60 * MIN),
    chain,
    iss: 'did:sync:system:issuer',
    aud: spec.aud ?? 'did:sync:user:someone',
    guard: spec.guard ?? null,
    created_at: iso(T0 - 24 * 60 * MIN),
    label: spec.label ?? null,
    invite_id: null,
    note: null,
  };
}

/** A graph with helpers to add roots and children by id, the chain derived from the parent. */
class Tree {
  readonly graph = new GrantGraph();
  private next = 1;

  root(spec: Spec = {}): string {
    const id = gid(this.next++);
    this.graph.add(id, fieldsOf([], spec));
    return id;
  }

  child(parent: string, spec: Spec = {}): string {
    const id = gid(this.next++);
    const node = this.graph.get(parent)!;
    this.graph.add(id, fieldsOf([parent, ...node.chain], spec));
    return id;
  }

  standing(id: string, now = T0): GrantStanding {
    return this.graph.standing(id, now);
  }
}

// ---------------------------------------------------------------------------
// The reference model: what §5.4 says each grant's standing is, from the
// declared fields of the grant and its ancestors alone.
// ---------------------------------------------------------------------------

interface RefNode {
  readonly id: string;
  readonly parent: number | null;
  readonly depth: number;
  readonly scopes: readonly string[];
  readonly caveats: Caveats;
  readonly expiresMs: number;
  readonly guard: string | null;
  /** Index among the parent's children, in log order. */
  readonly birthOrder: number;
}

class Reference {
  readonly nodes: RefNode[] = [];
  private readonly childCount = new Map<number, number>();
  private readonly revokedAt = new Set<number>();

  add(parent: number | null, fields: Pick<RefNode, 'scopes' | 'caveats' | 'expiresMs' | 'guard'>, id: string): number {
    const birthOrder = parent === null ? 0 : (this.childCount.get(parent) ?? 0);
    if (parent !== null) this.childCount.set(parent, birthOrder + 1);
    this.nodes.push({ id, parent, depth: parent === null ? 0 : this.nodes[parent]!.depth + 1, birthOrder, ...fields });
    return this.nodes.length - 1;
  }

  revoke(index: number): void {
    this.revokedAt.add(index);
  }

  /** Ancestors nearest first. */
  ancestors(index: number): number[] {
    const out: number[] = [];
    for (let p = this.nodes[index]!.parent; p !== null; p = this.nodes[p]!.parent) out.push(p);
    return out;
  }

  /** A caveat's bound for a node from its ancestors' declared values (max_depth counts the hops between), or null when no ancestor declares it. */
  chainBound(index: number, name: CaveatName): number | null {
    const node = this.nodes[index]!;
    let bound: number | null = null;
    for (const a of this.ancestors(index)) {
      const declared = this.nodes[a]!.caveats[name];
      if (declared === undefined) continue;
      const value = name === 'max_depth' ? declared - (node.depth - this.nodes[a]!.depth) : declared;
      bound = bound === null ? value : Math.min(bound, value);
    }
    return bound;
  }

  /** The effective caveat: the minimum of the node's own and its chain's bound. */
  effective(index: number, name: CaveatName): number | null {
    const own = this.nodes[index]!.caveats[name] ?? null;
    const bound = this.chainBound(index, name);
    if (own === null) return bound;
    return bound === null ? own : Math.min(own, bound);
  }

  /** Structurally in force (rules 1-4, 6), whatever the time and revocations. */
  sound(index: number): boolean {
    const node = this.nodes[index]!;
    if (node.guard !== null) return false;
    if (node.parent === null) return true;
    if (!this.sound(node.parent)) return false;
    for (const a of this.ancestors(index)) {
      const ancestor = this.nodes[a]!;
      if (!scopesWithin(node.scopes, ancestor.scopes)) return false;
      const hops = node.depth - ancestor.depth;
      if (ancestor.caveats.max_depth !== undefined && hops > ancestor.caveats.max_depth) return false;
    }
    for (const name of CAVEAT_NAMES) {
      const bound = this.chainBound(index, name);
      if (bound === null) continue;
      const own = node.caveats[name];
      if (own === undefined || own > bound) return false;
    }
    // Rule 4: the parent's fanout is the minimum declared along its own chain (itself included).
    const parent = node.parent;
    let fanout: number | null = null;
    for (const a of [parent, ...this.ancestors(parent)]) {
      const declared = this.nodes[a]!.caveats.max_fanout;
      if (declared !== undefined) fanout = fanout === null ? declared : Math.min(fanout, declared);
    }
    return fanout === null || node.birthOrder < fanout;
  }

  effectiveExpiresMs(index: number): number {
    return Math.min(this.nodes[index]!.expiresMs, ...this.ancestors(index).map((a) => this.nodes[a]!.expiresMs));
  }

  standing(index: number, now: number): GrantStanding {
    if (this.revokedAt.has(index) || this.ancestors(index).some((a) => this.revokedAt.has(a))) return 'revoked';
    if (!this.sound(index)) return 'not_in_force';
    return now < this.effectiveExpiresMs(index) ? 'in_force' : 'expired';
  }
}

// ---------------------------------------------------------------------------
// Generators: each grant is described relative to its parent, then made concrete.
// ---------------------------------------------------------------------------

type CaveatMode = 'keep' | 'narrow' | 'widen' | 'drop' | 'fresh';
interface CaveatGen {
  readonly mode: CaveatMode;
  readonly delta: number;
  readonly fresh: number;
}
interface AddStep {
  readonly op: 'add';
  readonly root: boolean;
  readonly parentPick: number;
  /** Delegate from one of the last few grants (deeper trees) rather than any. */
  readonly recent: boolean;
  /** Every caveat kept or narrowed (a well-behaved delegate), or each drawn freely (possibly widened or dropped). */
  readonly faithful: boolean;
  readonly narrowScopes: boolean;
  readonly scopeMask: readonly boolean[];
  readonly randomScopes: readonly string[];
  readonly caveats: Record<CaveatName, CaveatGen>;
  readonly expiresInMin: number;
  readonly guarded: boolean;
}
interface RevokeStep {
  readonly op: 'revoke';
  readonly pick: number;
}
type Step = AddStep | RevokeStep;

const caveatGen = fc.record({
  mode: fc.constantFrom<CaveatMode>('keep', 'keep', 'narrow', 'narrow', 'widen', 'drop', 'fresh'),
  delta: fc.constantFrom(0, 0, 0, 1, 2, 3),
  fresh: fc.integer({ min: 0, max: 5 }),
});

const addStep: fc.Arbitrary<Step> = fc.record({
  op: fc.constant('add' as const),
  root: fc.integer({ min: 0, max: 9 }).map((n) => n === 0),
  parentPick: fc.nat(),
  recent: fc.boolean(),
  faithful: fc.integer({ min: 0, max: 3 }).map((n) => n < 3),
  narrowScopes: fc.constantFrom(true, true, true, false),
  scopeMask: fc.array(fc.boolean(), { minLength: SCOPE_POOL.length, maxLength: SCOPE_POOL.length }),
  randomScopes: fc.subarray([...SCOPE_POOL]),
  caveats: fc.record({ max_depth: caveatGen, max_fanout: caveatGen, budget: caveatGen }),
  expiresInMin: fc.integer({ min: 1, max: 600 }),
  guarded: fc.constantFrom(false, false, false, false, false, false, false, false, false, true),
});
const revokeStep: fc.Arbitrary<Step> = fc.record({ op: fc.constant('revoke' as const), pick: fc.nat() });
const steps = fc.array(fc.oneof({ arbitrary: addStep, weight: 9 }, { arbitrary: revokeStep, weight: 1 }), { minLength: 1, maxLength: 40 });
/** Times to judge at: always one before anything expires, then random ones across every expiry. */
const nows = fc.array(fc.integer({ min: T0 - MIN, max: T0 + 601 * MIN }), { minLength: 0, maxLength: 3 }).map((times) => [T0 - MIN, ...times]);

/** A concrete caveat value for a child from its parent's declared value. */
function caveatValue(name: CaveatName, gen: CaveatGen, parentValue: number | undefined, faithful: boolean): number | undefined {
  const step = name === 'budget' ? 0.5 : 1;
  if (faithful && parentValue !== undefined && gen.mode !== 'keep') gen = { ...gen, mode: 'narrow' };
  if (parentValue === undefined) {
    if (gen.mode === 'keep' || gen.mode === 'drop' || gen.mode === 'narrow') return undefined;
    return name === 'budget' ? gen.fresh * 2.5 : gen.fresh;
  }
  const same = name === 'max_depth' ? parentValue - 1 : parentValue;
  switch (gen.mode) {
    case 'keep':
      return Math.max(0, same);
    case 'narrow':
      return Math.max(0, same - gen.delta * step);
    case 'widen':
      return same + step + gen.delta * step;
    case 'drop':
      return undefined;
    case 'fresh':
      return name === 'budget' ? gen.fresh * 2.5 : gen.fresh;
  }
}

/** Builds the graph and the reference model side by side. */
function build(script: readonly Step[]): { graph: GrantGraph; ref: Reference } {
  const graph = new GrantGraph();
  const ref = new Reference();
  for (const step of script) {
    if (step.op === 'revoke') {
      if (ref.nodes.length === 0) continue;
      const index = step.pick % ref.nodes.length;
      graph.revoke(ref.nodes[index]!.id, iso(T0), null);
      ref.revoke(index);
      continue;
    }
    const count = ref.nodes.length;
    const parent = step.root || count === 0 ? null : step.recent ? count - 1 - (step.parentPick % Math.min(3, count)) : step.parentPick % count;
    const parentNode = parent === null ? null : ref.nodes[parent]!;
    const scopes = parentNode && step.narrowScopes ? parentNode.scopes.filter((_, i) => step.scopeMask[i % step.scopeMask.length]) : step.randomScopes;
    const caveats: Caveats = {};
    for (const name of CAVEAT_NAMES) {
      const value = caveatValue(name, step.caveats[name], parentNode?.caveats[name], step.faithful);
      if (value !== undefined) caveats[name] = value;
    }
    const expiresMs = T0 + step.expiresInMin * MIN;
    const guard = step.guarded ? 'actor == "did:sync:user:x"' : null;
    const id = gid(ref.nodes.length + 1);
    const chain: string[] = parent === null ? [] : [ref.nodes[parent]!.id, ...ref.ancestors(parent).map((a) => ref.nodes[a]!.id)];
    graph.add(id, fieldsOf(chain, { scopes, caveats, expiresMs, guard }));
    ref.add(parent, { scopes, caveats, expiresMs, guard }, id);
  }
  return { graph, ref };
}

describe('GrantGraph (spec §5.4)', () => {
  describe('random grant trees against a reference model', () => {
    it('stands every grant exactly where the reference model says, at any time, with the chain-minimum caveats and expiry', () => {
      fc.assert(
        fc.property(steps, nows, (script, times) => {
          const { graph, ref } = build(script);
          for (let i = 0; i < ref.nodes.length; i++) {
            const node = graph.get(ref.nodes[i]!.id)!;
            for (const now of times) expect(graph.standing(node.id, now), `grant #${i} at ${iso(now)}`).to.equal(ref.standing(i, now));
            // What the grant fold serves for every grant, in force or not: the chain minimum of each caveat and of the expiry.
            for (const name of CAVEAT_NAMES) expect(node.effective[name], `effective ${name} of #${i}`).to.equal(ref.effective(i, name));
            expect(node.effectiveExpiresMs, `effective expiry of #${i}`).to.equal(ref.effectiveExpiresMs(i));
            expect(node.fault === null, `fault of #${i}: ${node.fault}`).to.equal(ref.sound(i));
          }
        }),
        { numRuns: 200 },
      );
    });

    it('an in-force grant is within every ancestor: scopes, caveats, depth, fanout and expiry', () => {
      fc.assert(
        fc.property(steps, nows, (script, times) => {
          const { graph, ref } = build(script);
          for (const now of times) {
            const inForceChildren = new Map<number, number>();
            for (let i = 0; i < ref.nodes.length; i++) {
              const id = ref.nodes[i]!.id;
              if (graph.standing(id, now) !== 'in_force') continue;
              const node = graph.get(id)!;
              const parent = ref.nodes[i]!.parent;
              if (parent !== null) inForceChildren.set(parent, (inForceChildren.get(parent) ?? 0) + 1);
              expect(node.depth).to.equal(ref.nodes[i]!.depth);
              for (const a of ref.ancestors(i)) {
                const ancestor = ref.nodes[a]!;
                const hops = node.depth - ancestor.depth;
                // Rule 1.
                expect(scopesWithin(node.scopes, ancestor.scopes), `scopes of #${i} within #${a}`).to.equal(true);
                // Rules 2 and 3: never wider than anything an ancestor declared; max_depth counts the hops between.
                for (const name of CAVEAT_NAMES) {
                  const declared = ancestor.caveats[name];
                  if (declared === undefined) continue;
                  const effective = node.effective[name];
                  expect(effective, `${name} of #${i} under #${a}`).to.not.equal(null);
                  expect(effective!).to.be.at.most(declared);
                  if (name === 'max_depth') {
                    expect(hops, `depth of #${i} below #${a}`).to.be.at.most(declared);
                    expect(effective!).to.be.at.most(declared - hops);
                  }
                }
                // Rule 5.
                expect(node.effectiveExpiresMs).to.be.at.most(ancestor.expiresMs);
                expect(graph.standing(ancestor.id, now), `ancestor #${a} of in-force #${i}`).to.equal('in_force');
              }
              expect(node.effectiveExpiresMs).to.be.at.most(ref.nodes[i]!.expiresMs);
              expect(node.effectiveExpiresMs).to.equal(ref.effectiveExpiresMs(i));
              for (const name of CAVEAT_NAMES) expect(node.effective[name], `effective ${name} of #${i}`).to.equal(ref.effective(i, name));
            }
            // Rule 4: no parent honours more children than its effective fanout.
            for (const [parent, count] of inForceChildren) {
              let fanout = Infinity;
              for (const a of [parent, ...ref.ancestors(parent)]) fanout = Math.min(fanout, ref.nodes[a]!.caveats.max_fanout ?? Infinity);
              expect(count, `in-force children of #${parent}`).to.be.at.most(fanout);
            }
          }
        }),
        { numRuns: 200 },
      );
    });

    it('generates trees with grants in force, out of force, expired and revoked (the model is exercised)', () => {
      const seen = new Set<GrantStanding>();
      fc.assert(
        fc.property(steps, nows, (script, times) => {
          const { graph, ref } = build(script);
          for (const node of ref.nodes) for (const now of times) seen.add(graph.standing(node.id, now));
        }),
        { numRuns: 100, seed: 42 },
      );
      expect([...seen].sort()).to.deep.equal(['expired', 'in_force', 'not_in_force', 'revoked']);
    });
  });

  describe('rule 1 and 2: attenuation', () => {
    const rootCaveats = { max_depth: 3, max_fanout: 5, budget: 10 };

    it('a child with caveats equal to or narrower than the chain is in force', () => {
      const t = new Tree();
      const root = t.root({ scopes: ['records:read', 'records:write'], caveats: rootCaveats });
      expect(t.standing(t.child(root, { scopes: ['records:read'], caveats: { max_depth: 2, max_fanout: 5, budget: 10 } }))).to.equal('in_force');
      expect(t.standing(t.child(root, { scopes: ['namespace:acme:read'], caveats: { max_depth: 0, max_fanout: 0, budget: 0.5 } }))).to.equal('in_force');
    });

    it('a widened caveat puts the grant out of force', () => {
      const t = new Tree();
      const root = t.root({ caveats: rootCaveats });
      expect(t.standing(t.child(root, { caveats: { max_depth: 2, max_fanout: 5, budget: 10.5 } }))).to.equal('not_in_force');
      expect(t.standing(t.child(root, { caveats: { max_depth: 2, max_fanout: 6, budget: 10 } }))).to.equal('not_in_force');
      // max_depth: the parent leaves 3 hops, so a child may keep at most 2 below itself.
      expect(t.standing(t.child(root, { caveats: { max_depth: 3, max_fanout: 5, budget: 10 } }))).to.equal('not_in_force');
      expect(t.graph.get(t.child(root, { caveats: { max_depth: 2, max_fanout: 5, budget: 99 } }))!.fault).to.match(/budget/);
    });

    it('a dropped caveat the chain carries puts the grant out of force, wherever up the chain it was declared', () => {
      const t = new Tree();
      const root = t.root({ caveats: rootCaveats });
      for (const name of CAVEAT_NAMES) {
        const caveats: Caveats = { max_depth: 2, max_fanout: 5, budget: 10 };
        delete caveats[name];
        const id = t.child(root, { caveats });
        expect(t.standing(id), `dropping ${name}`).to.equal('not_in_force');
        expect(t.graph.get(id)!.fault).to.include(name);
      }
      // Declared by the grandparent only (the parent narrowed it and kept it): dropping it at depth 2 is still out of force.
      const t2 = new Tree();
      const r2 = t2.root({ caveats: { budget: 4 } });
      const mid = t2.child(r2, { caveats: { budget: 4 } });
      expect(t2.standing(t2.child(mid, { caveats: {} }))).to.equal('not_in_force');
      expect(t2.standing(t2.child(mid, { caveats: { budget: 1 } }))).to.equal('in_force');
    });

    it('a child with wider scopes is out of force; grains attenuate coarse scopes and enclosing namespaces', () => {
      const t = new Tree();
      const root = t.root({ scopes: ['records:read', 'namespace:acme:write'] });
      expect(t.standing(t.child(root, { scopes: ['records:write'] }))).to.equal('not_in_force');
      expect(t.standing(t.child(root, { scopes: ['admin'] }))).to.equal('not_in_force');
      expect(t.standing(t.child(root, { scopes: [`thread:${TH}:read`, 'namespace:acme/eu:write'] }))).to.equal('in_force');
      expect(t.standing(t.child(root, { scopes: ['namespace:acme/eu:read', 'namespace:acmex:write'] }))).to.equal('not_in_force');
    });

    it('every descendant of a grant out of force is out of force, however narrow it is', () => {
      const t = new Tree();
      const root = t.root({ caveats: { budget: 5 } });
      const widened = t.child(root, { caveats: { budget: 6 } });
      const grandchild = t.child(widened, { scopes: ['records:read'], caveats: { budget: 1 } });
      const great = t.child(grandchild, { scopes: ['records:read'], caveats: { budget: 0 } });
      expect(t.standing(widened)).to.equal('not_in_force');
      expect(t.standing(grandchild)).to.equal('not_in_force');
      expect(t.standing(great)).to.equal('not_in_force');
      const dropped = t.child(root, { caveats: {} });
      expect(t.standing(t.child(dropped, { caveats: { budget: 1 } }))).to.equal('not_in_force');
    });
  });

  describe('rule 3: max_depth bounds the whole subtree', () => {
    for (const k of [0, 1, 2, 3, 5]) {
      it(`root max_depth ${k}: depth ≤ ${k} in force, depth ${k + 1} not`, () => {
        const t = new Tree();
        const ids = [t.root({ caveats: { max_depth: k } })];
        for (let d = 1; d <= k + 1; d++) ids.push(t.child(ids[d - 1]!, { caveats: { max_depth: Math.max(0, k - d) } }));
        for (let d = 0; d <= k; d++) expect(t.standing(ids[d]!), `depth ${d}`).to.equal('in_force');
        expect(t.standing(ids[k + 1]!), `depth ${k + 1}`).to.equal('not_in_force');
        expect(t.graph.get(ids[k + 1]!)!.fault).to.match(/max_depth/);
      });
    }

    it('an intermediate grant cannot lift an ancestor\'s bound by declaring more', () => {
      const t = new Tree();
      const root = t.root({ caveats: { max_depth: 2 } });
      const a = t.child(root, { caveats: { max_depth: 1 } });
      const b = t.child(a, { caveats: { max_depth: 0 } });
      expect(t.standing(b)).to.equal('in_force');
      expect(t.standing(t.child(b, { caveats: { max_depth: 0 } }))).to.equal('not_in_force');
      // Declaring more than the chain leaves is a widening (rule 2), and its whole subtree falls with it.
      const lifted = t.child(root, { caveats: { max_depth: 5 } });
      expect(t.standing(lifted)).to.equal('not_in_force');
      expect(t.standing(t.child(lifted, { caveats: { max_depth: 0 } }))).to.equal('not_in_force');
    });

    it('a max_depth declared midway bounds the subtree below it', () => {
      const t = new Tree();
      const root = t.root();
      const mid = t.child(root, { caveats: { max_depth: 1 } });
      const one = t.child(mid, { caveats: { max_depth: 0 } });
      expect(t.standing(one)).to.equal('in_force');
      expect(t.standing(t.child(one, { caveats: { max_depth: 0 } }))).to.equal('not_in_force');
    });
  });

  describe('rule 4: max_fanout', () => {
    for (const f of [0, 1, 2, 3]) {
      it(`a parent with max_fanout ${f} honours its first ${f} children, not the next, even after one is revoked`, () => {
        const t = new Tree();
        const parent = t.root({ caveats: { max_fanout: f } });
        const children = Array.from({ length: f + 1 }, () => t.child(parent, { caveats: { max_fanout: 0 } }));
        for (let i = 0; i < f; i++) expect(t.standing(children[i]!), `child ${i}`).to.equal('in_force');
        expect(t.standing(children[f]!), `child ${f}`).to.equal('not_in_force');
        expect(t.graph.get(children[f]!)!.fault).to.match(/first \d+ children/);
        if (f > 0) {
          expect(t.graph.revoke(children[0]!, iso(T0), null)).to.deep.equal([children[0]]);
          expect(t.standing(children[0]!)).to.equal('revoked');
          const later = t.child(parent, { caveats: { max_fanout: 0 } });
          expect(t.standing(later), 'a child after a revocation').to.equal('not_in_force');
          for (let i = 1; i < f; i++) expect(t.standing(children[i]!)).to.equal('in_force');
        }
      });
    }

    it('a fanout declared higher up bounds a parent that narrowed it', () => {
      const t = new Tree();
      const root = t.root({ caveats: { max_fanout: 2 } });
      const mid = t.child(root, { caveats: { max_fanout: 1 } });
      expect(t.standing(t.child(mid, { caveats: { max_fanout: 1 } }))).to.equal('in_force');
      expect(t.standing(t.child(mid, { caveats: { max_fanout: 1 } }))).to.equal('not_in_force');
    });
  });

  describe('rule 9: revocation cascades', () => {
    it('revoking the top of a 3-level tree revokes every descendant, once', () => {
      const t = new Tree();
      const root = t.root();
      const a = t.child(root);
      const b = t.child(root);
      const a1 = t.child(a);
      const a2 = t.child(a);
      const b1 = t.child(b);
      const other = t.root();
      const first = t.graph.revoke(root, iso(T0), 'left the team');
      expect([...first].sort()).to.deep.equal([root, a, b, a1, a2, b1].sort());
      for (const id of [root, a, b, a1, a2, b1]) {
        expect(t.standing(id), id).to.equal('revoked');
        expect(t.graph.get(id)!.revokedVia).to.equal(root);
        expect(t.graph.get(id)!.revocationNote).to.equal('left the team');
      }
      expect(t.standing(other)).to.equal('in_force');
      expect(t.graph.revoke(root, iso(T0), null)).to.deep.equal([]);
      expect(t.graph.revoke(a1, iso(T0), null)).to.deep.equal([]);
      // A grant added later under a revoked one is born revoked.
      expect(t.standing(t.child(b1))).to.equal('revoked');
    });

    it('revoking a subtree first, then the top, revokes the rest and keeps the first revocation\'s attribution', () => {
      const t = new Tree();
      const root = t.root();
      const a = t.child(root);
      const a1 = t.child(a);
      const b = t.child(root);
      expect([...t.graph.revoke(a, iso(T0), null)].sort()).to.deep.equal([a, a1].sort());
      expect(t.standing(b)).to.equal('in_force');
      expect([...t.graph.revoke(root, iso(T0), null)].sort()).to.deep.equal([root, b].sort());
      expect(t.graph.get(a1)!.revokedVia).to.equal(a);
      expect(t.graph.revoke(gid(999), iso(T0), null)).to.deep.equal([]);
      expect(t.standing(gid(999)), 'unknown grants stand revoked').to.equal('revoked');
    });
  });

  describe('rule 5: expiry along the chain', () => {
    it('a grant is expired once now reaches its effective expiry, including when only an ancestor expired', () => {
      const t = new Tree();
      const root = t.root({ expiresMs: T0 + 10 * MIN });
      const child = t.child(root, { expiresMs: T0 + 60 * MIN });
      const grandchild = t.child(child, { expiresMs: T0 + 5 * MIN });
      expect(t.graph.get(child)!.effectiveExpiresMs).to.equal(T0 + 10 * MIN);
      expect(t.graph.get(grandchild)!.effectiveExpiresMs).to.equal(T0 + 5 * MIN);
      expect(t.standing(child, T0 + 10 * MIN - 1)).to.equal('in_force');
      expect(t.standing(child, T0 + 10 * MIN)).to.equal('expired');
      expect(t.standing(root, T0 + 10 * MIN)).to.equal('expired');
      expect(t.standing(grandchild, T0 + 5 * MIN - 1)).to.equal('in_force');
      expect(t.standing(grandchild, T0 + 5 * MIN)).to.equal('expired');
      expect(t.standing(child, T0 + 5 * MIN), 'a child expiring does not expire its parent').to.equal('in_force');
    });

    it('revocation and structural faults outrank expiry', () => {
      const t = new Tree();
      const root = t.root({ expiresMs: T0 + MIN, caveats: { budget: 1 } });
      const wide = t.child(root, { caveats: { budget: 2 } });
      expect(t.standing(wide, T0 + 2 * MIN)).to.equal('not_in_force');
      t.graph.revoke(root, null, null);
      expect(t.standing(wide, T0 + 2 * MIN)).to.equal('revoked');
    });

    it('no grant outlives the hard lifetime cap after its creation', () => {
      const graph = new GrantGraph();
      const f = fieldsOf([], { expiresMs: Date.parse('9999-01-01T00:00:00Z') });
      const node = graph.add(gid(1), f);
      expect(node.expiresMs).to.be.lessThan(Date.parse(f.created_at) + 11 * 366 * 24 * 3600 * 1000);
    });
  });

  describe('rules 6 and 7: ancestryProblem (the ingest door)', () => {
    /** n[0] is a root; n[i] is n[i-1]'s only child, i hops deep. */
    function line(length: number): { t: Tree; n: string[] } {
      const t = new Tree();
      const n = [t.root()];
      for (let i = 1; i < length; i++) n.push(t.child(n[i - 1]!));
      return { t, n };
    }
    const chainBelow = (t: Tree, parent: string) => [parent, ...t.graph.get(parent)!.chain];

    it('accepts a 64-hop chain of real grants and refuses a 65-hop one', () => {
      const { t, n } = line(MAX_CHAIN_HOPS + 1);
      expect(t.graph.get(n[MAX_CHAIN_HOPS]!)!.chain).to.have.length(MAX_CHAIN_HOPS);
      const at64 = chainBelow(t, n[MAX_CHAIN_HOPS - 1]!);
      expect(at64).to.have.length(64);
      expect(ancestryProblem(t.graph, { parents: [at64[0]!] }, fieldsOf(at64))).to.equal(null);
      const at65 = chainBelow(t, n[MAX_CHAIN_HOPS]!);
      expect(at65).to.have.length(65);
      expect(ancestryProblem(t.graph, { parents: [at65[0]!] }, fieldsOf(at65))).to.match(/65 hops; at most 64/);
    });

    it('accepts a root citing no grant and a child citing exactly its chain\'s first id (other parents that are not grants do not count)', () => {
      const { t, n } = line(3);
      expect(ancestryProblem(t.graph, { parents: [] }, fieldsOf([]))).to.equal(null);
      expect(ancestryProblem(t.graph, { parents: ['f'.repeat(64)] }, fieldsOf([]))).to.equal(null);
      const chain = chainBelow(t, n[2]!);
      expect(ancestryProblem(t.graph, { parents: [n[2]!] }, fieldsOf(chain))).to.equal(null);
      expect(ancestryProblem(t.graph, { parents: ['e'.repeat(64), n[2]!] }, fieldsOf(chain))).to.equal(null);
    });

    it('refuses a chain whose first id is not among the record\'s parents', () => {
      const { t, n } = line(3);
      const chain = chainBelow(t, n[2]!);
      expect(ancestryProblem(t.graph, { parents: [] }, fieldsOf(chain))).to.match(/cite no grant/);
      expect(ancestryProblem(t.graph, { parents: [n[1]!] }, fieldsOf(chain))).to.match(/chain starts at/);
      expect(ancestryProblem(t.graph, { parents: [n[2]!, n[1]!] }, fieldsOf(chain))).to.match(/chain starts at/);
      expect(ancestryProblem(t.graph, { parents: [n[0]!] }, fieldsOf([])), 'a root citing a grant').to.match(/root grant/);
    });

    it('refuses a chain that skips a hop, names a non-ancestor, stops short of the root, or names an unknown grant', () => {
      const { t, n } = line(4);
      const sibling = t.child(n[1]!);
      const problem = (chain: string[]) => ancestryProblem(t.graph, { parents: [chain[0]!] }, fieldsOf(chain));
      expect(problem([n[3]!, n[2]!, n[1]!, n[0]!])).to.equal(null);
      expect(problem([n[3]!, n[1]!, n[0]!]), 'skips a hop').to.match(/does not support/);
      expect(problem([n[3]!, sibling, n[1]!, n[0]!]), 'names a non-ancestor').to.match(/does not support/);
      expect(problem([n[3]!, n[2]!, n[1]!]), 'stops short of the root').to.match(/does not support/);
      expect(problem([n[3]!, n[2]!, n[1]!, n[0]!, gid(777)]), 'claims ancestry past the root').to.match(/does not support/);
      expect(problem([gid(778), n[0]!]), 'an unknown first hop').to.not.equal(null);
      expect(ancestryProblem(t.graph, { parents: [n[1]!] }, fieldsOf([n[1]!, gid(779)])), 'an unknown later hop').to.match(/does not support/);
    });

    it('refuses a child substituting or dropping its parent\'s guard, accepts the same guard', () => {
      const t = new Tree();
      const root = t.root({ guard: 'actor == "did:sync:user:alice"' });
      const chain = [root];
      expect(ancestryProblem(t.graph, { parents: [root] }, fieldsOf(chain, { guard: 'true' }))).to.match(/guard/);
      expect(ancestryProblem(t.graph, { parents: [root] }, fieldsOf(chain, { guard: null }))).to.match(/guard/);
      expect(ancestryProblem(t.graph, { parents: [root] }, fieldsOf(chain, { guard: 'actor == "did:sync:user:alice"' }))).to.equal(null);
      // Guards fail closed: no evaluator is installed, so a guarded grant (and anything below it) is never in force.
      expect(t.standing(root)).to.equal('not_in_force');
      expect(t.standing(t.child(root, { guard: 'actor == "did:sync:user:alice"' }))).to.equal('not_in_force');
    });
  });

  describe('rule 8: principalOf', () => {
    it('an alias delegated from a member resolves to the member, through any number of hops', () => {
      const t = new Tree();
      const member = 'did:sync:user:alice';
      const root = t.root({ aud: member, label: 'alice' });
      const agent = t.child(root, { aud: 'did:key:z6MkAgent', scopes: ['records:read'] });
      t.child(agent, { aud: 'did:key:z6MkSubAgent', scopes: ['records:read'] });
      expect(t.graph.principalOf('did:key:z6MkAgent', T0)).to.equal(member);
      expect(t.graph.principalOf('did:key:z6MkSubAgent', T0)).to.equal(member);
      expect(t.graph.principalOf(member, T0)).to.equal(member);
      expect(t.graph.principalOf('did:key:z6MkStranger', T0), 'a DID with no grant is its own principal').to.equal('did:key:z6MkStranger');
    });

    it('liveGrantFor prefers the latest in-force grant, membership grants first', () => {
      const t = new Tree();
      const aud = 'did:sync:user:bob';
      const membership = t.root({ aud, label: 'bob' });
      const plain = t.root({ aud });
      expect(t.graph.liveGrantFor(aud, T0)!.id).to.equal(membership);
      t.graph.revoke(membership, null, null);
      expect(t.graph.liveGrantFor(aud, T0)!.id).to.equal(plain);
      t.graph.revoke(plain, null, null);
      expect(t.graph.liveGrantFor(aud, T0)).to.equal(null);
    });
  });
});
