/**
 * The delegation graph (spec §2.5, §5.4), folded incrementally from grant and
 * revocation records. Everything a request needs is derived once, when a
 * record is applied: a grant's depth, its effective caveats (the minimum
 * along its chain), its earliest expiry along the chain, and whether it is
 * structurally in force (rules 1-4, 6). Revocation marks the whole subtree at
 * once. Checking a credential's grant on a request is then one map lookup and
 * a comparison with the clock (rules 5 and 9): never a walk.
 *
 * Structural faults make a grant "not in force" rather than refusing its
 * record: the ingest door refuses what it can see at once (a chain the parents
 * walk does not support, more than 64 hops, a substituted guard: rule 6, 7),
 * and the fold is the judge of everything else, so a record that reached the
 * log by any path can never widen what a credential may do.
 */
import { scopesWithin, isScopeOrGrain } from '../../core/access/scopes.js';
import type { LoomRecord } from '../../core/records/record.js';

/** Rule 7: the chain lists at most 64 ancestor grant ids. */
export const MAX_CHAIN_HOPS = 64;
/** No grant outlives this, whatever its record says (the configured cap is enforced at issue; docs/decisions.md). */
export const HARD_MAX_LIFETIME_MS = 10 * 366 * 24 * 3600 * 1000;

export const CAVEAT_NAMES = ['max_depth', 'max_fanout', 'budget'] as const;
export type CaveatName = (typeof CAVEAT_NAMES)[number];
export type Caveats = Partial<Record<CaveatName, number>>;
export type EffectiveCaveats = Record<CaveatName, number | null>;

/** The fields of a grant record's body. */
export interface GrantFields {
  readonly scopes: readonly string[];
  readonly caveats: Caveats;
  readonly expires_at: string;
  readonly chain: readonly string[];
  readonly iss: string;
  readonly aud: string;
  readonly guard: string | null;
  readonly created_at: string;
  /** Set on a membership grant: the member's label. */
  readonly label: string | null;
  readonly invite_id: string | null;
  readonly note: string | null;
}

export type GrantStanding = 'in_force' | 'revoked' | 'expired' | 'not_in_force';

export interface GrantNode extends GrantFields {
  readonly id: string;
  readonly parent: string | null;
  readonly depth: number;
  readonly expiresMs: number;
  /** The earliest expiry along the chain (rule 5). */
  readonly effectiveExpiresMs: number;
  /** Minimum along the chain; max_depth is the hops still allowed below this grant (rule 2, 3). */
  readonly effective: EffectiveCaveats;
  /** Why the grant is not in force whatever the time (rules 1-4, 6), or null. */
  readonly fault: string | null;
  /** Direct children in log order (rule 4 counts them). */
  readonly children: string[];
  revoked: boolean;
  /** The grant whose revocation reached this one (itself or an ancestor). */
  revokedVia: string | null;
  revokedAt: string | null;
  revocationNote: string | null;
}

const text = (value: unknown): string | null => (typeof value === 'string' && value.length > 0 ? value : null);
const ID = /^[0-9a-f]{64}$/;

/** Reads a grant body; a string says what is wrong with it. */
export function readGrantFields(body: Readonly<Record<string, unknown>>): GrantFields | string {
  const scopes = body['scopes'];
  if (!Array.isArray(scopes) || !scopes.every(isScopeOrGrain)) return 'scopes must be an array of scopes and wire grains';
  const chain = body['chain'];
  if (!Array.isArray(chain) || !chain.every((id) => typeof id === 'string' && ID.test(id))) return 'chain must be an array of grant ids (64 lowercase hex)';
  if (new Set(chain).size !== chain.length) return 'chain names a grant twice';
  const expires = text(body['expires_at']);
  if (expires === null || !Number.isFinite(Date.parse(expires))) return 'expires_at is required (an ISO 8601 timestamp)';
  const iss = text(body['iss']);
  const aud = text(body['aud']);
  if (iss === null || aud === null) return 'iss and aud are required DIDs';
  const rawCaveats = body['caveats'] ?? {};
  if (typeof rawCaveats !== 'object' || rawCaveats === null || Array.isArray(rawCaveats)) return 'caveats must be an object';
  const caveats: Caveats = {};
  for (const [name, value] of Object.entries(rawCaveats)) {
    if (!(CAVEAT_NAMES as readonly string[]).includes(name)) return `unknown caveat ${name}: use max_depth, max_fanout or budget`;
    if (value === null || value === undefined) continue;
    const integral = name !== 'budget';
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || (integral && !Number.isInteger(value))) {
      return `caveat ${name} must be a non-negative ${integral ? 'integer' : 'number'}`;
    }
    caveats[name as CaveatName] = value;
  }
  const guard = body['guard'];
  if (guard !== undefined && guard !== null && typeof guard !== 'string') return 'guard must be a string expression';
  return {
    scopes: scopes as string[],
    caveats,
    expires_at: expires,
    chain: chain as string[],
    iss,
    aud,
    guard: (guard as string | null | undefined) ?? null,
    created_at: text(body['created_at']) ?? expires,
    label: text(body['label']),
    invite_id: text(body['invite_id']),
    note: text(body['note']),
  };
}

/**
 * Rule 6 and 7 as the ingest door applies them, against the graph of every
 * grant already in the log. Returns why the record is refused, or null.
 */
export function ancestryProblem(graph: GrantGraph, record: Pick<LoomRecord, 'parents'>, fields: GrantFields): string | null {
  const { chain } = fields;
  if (chain.length > MAX_CHAIN_HOPS) return `the chain has ${chain.length} hops; at most ${MAX_CHAIN_HOPS} are allowed`;
  const grantParents = record.parents.filter((id) => graph.has(id));
  const expected = chain.length === 0 ? [] : [chain[0]!];
  if (grantParents.length !== expected.length || (expected.length === 1 && grantParents[0] !== expected[0])) {
    return chain.length === 0
      ? 'a root grant (empty chain) must not cite a grant among its parents'
      : `the chain starts at ${chain[0]} but the record's parents cite ${grantParents.length === 0 ? 'no grant' : grantParents.join(', ')}`;
  }
  // Walk the actual parents: each hop must be a stored grant whose own parent is the next id, ending at a root.
  for (let hop = 0; hop < chain.length; hop++) {
    const node = graph.get(chain[hop]!);
    if (!node) return `chain hop ${hop} (${chain[hop]}) is not a grant in this log`;
    const next = chain[hop + 1] ?? null;
    if (node.parent !== next) return `chain hop ${hop} (${node.id}) has parent ${node.parent ?? 'none (a root)'}, not ${next ?? 'none'}: the chain claims ancestry its parents walk does not support`;
  }
  const parent = chain.length > 0 ? graph.get(chain[0]!)! : null;
  if (parent?.guard != null && fields.guard !== parent.guard) return 'the parent grant carries a guard expression; a child must carry the same guard, never a different one';
  return null;
}

export class GrantGraph {
  private readonly nodes = new Map<string, GrantNode>();
  /** Grant ids by audience, in log order. */
  private readonly byAudience = new Map<string, string[]>();
  /** Membership grant ids by label, in log order. */
  private readonly byLabel = new Map<string, string[]>();

  has(id: string): boolean {
    return this.nodes.has(id);
  }

  get(id: string): GrantNode | undefined {
    return this.nodes.get(id);
  }

  all(): IterableIterator<GrantNode> {
    return this.nodes.values();
  }

  get size(): number {
    return this.nodes.size;
  }

  /** Applies a grant record (already read), deriving everything requests will need. */
  add(id: string, fields: GrantFields): GrantNode {
    const parentId = fields.chain[0] ?? null;
    const parent = parentId === null ? null : this.nodes.get(parentId) ?? null;
    const expiresMs = Math.min(Date.parse(fields.expires_at), Date.parse(fields.created_at) + HARD_MAX_LIFETIME_MS || Infinity);
    const fault = this.faultOf(fields, parentId, parent);
    const effective: EffectiveCaveats = { max_depth: null, max_fanout: null, budget: null };
    for (const name of CAVEAT_NAMES) {
      const own = fields.caveats[name] ?? null;
      let inherited = parent?.effective[name] ?? null;
      if (name === 'max_depth' && inherited !== null) inherited = inherited - 1;
      effective[name] = own === null ? inherited : inherited === null ? own : Math.min(own, inherited);
    }
    const node: GrantNode = {
      ...fields,
      id,
      parent: parentId,
      depth: fields.chain.length,
      expiresMs,
      effectiveExpiresMs: Math.min(expiresMs, parent?.effectiveExpiresMs ?? Infinity),
      effective,
      fault,
      children: [],
      revoked: parent?.revoked ?? false,
      revokedVia: parent?.revoked ? parent.revokedVia : null,
      revokedAt: parent?.revoked ? parent.revokedAt : null,
      revocationNote: parent?.revoked ? parent.revocationNote : null,
    };
    parent?.children.push(id);
    this.nodes.set(id, node);
    push(this.byAudience, fields.aud, id);
    if (fields.label !== null) push(this.byLabel, fields.label, id);
    return node;
  }

  /** What `add` would find wrong with a grant of these fields, before it is written. */
  faultFor(fields: GrantFields): string | null {
    const parentId = fields.chain[0] ?? null;
    return this.faultOf(fields, parentId, parentId === null ? null : this.nodes.get(parentId) ?? null);
  }

  private faultOf(fields: GrantFields, parentId: string | null, parent: GrantNode | null): string | null {
    if (fields.guard !== null) return 'carries a guard expression, and no guard evaluator is installed on this instance (fail closed)';
    if (parentId === null) return null;
    if (!parent) return `its parent grant ${parentId} is not in this log`;
    if (parent.fault !== null) return `an ancestor is not in force (${parent.id})`;
    if (!scopesWithin(fields.scopes, parent.scopes)) return 'its scopes are wider than its parent grant\'s (rule 1)';
    const depthLeft = parent.effective.max_depth;
    if (depthLeft !== null && depthLeft < 1) return 'it is deeper than an ancestor\'s max_depth allows (rule 3)';
    for (const name of CAVEAT_NAMES) {
      let bound = parent.effective[name];
      if (bound === null) continue;
      if (name === 'max_depth') bound = bound - 1;
      const own = fields.caveats[name];
      if (own === undefined) return `it drops the ${name} caveat its chain carries (rule 2)`;
      if (own > bound) return `its ${name} (${own}) is wider than the chain allows (${bound}) (rule 2)`;
    }
    const fanout = parent.effective.max_fanout;
    if (fanout !== null && parent.children.length >= fanout) return `its parent honours only its first ${fanout} children (rule 4)`;
    return null;
  }

  /** Revokes a grant and its whole subtree; returns the ids newly revoked (idempotent). */
  revoke(id: string, at: string | null, note: string | null): string[] {
    const root = this.nodes.get(id);
    if (!root || root.revoked) return [];
    const newly: string[] = [];
    const stack = [root];
    while (stack.length > 0) {
      const node = stack.pop()!;
      if (node.revoked) continue;
      node.revoked = true;
      node.revokedVia = id;
      node.revokedAt = at;
      node.revocationNote = note;
      newly.push(node.id);
      for (const child of node.children) stack.push(this.nodes.get(child)!);
    }
    return newly;
  }

  /** Where a grant stands at `now` (rules 5 and 9): O(1). Unknown grants stand revoked. */
  standing(id: string, now: number): GrantStanding {
    const node = this.nodes.get(id);
    if (!node || node.revoked) return 'revoked';
    if (node.fault !== null) return 'not_in_force';
    return node.effectiveExpiresMs > now ? 'in_force' : 'expired';
  }

  /** The latest grant to `aud` in force at `now`, membership grants first. */
  liveGrantFor(aud: string, now: number): GrantNode | null {
    const ids = this.byAudience.get(aud) ?? [];
    let fallback: GrantNode | null = null;
    for (let i = ids.length - 1; i >= 0; i--) {
      const node = this.nodes.get(ids[i]!)!;
      if (this.standing(node.id, now) !== 'in_force') continue;
      if (node.label !== null) return node;
      fallback ??= node;
    }
    return fallback;
  }

  /** Membership grants of a label, in log order. */
  membershipsOf(label: string): GrantNode[] {
    return (this.byLabel.get(label) ?? []).map((id) => this.nodes.get(id)!);
  }

  labels(): IterableIterator<string> {
    return this.byLabel.keys();
  }

  /**
   * Rule 8: the principal a DID answers to. An alias holding a grant resolves
   * through its chain to the root grant's audience, so an agent delegated by
   * a member is that member for judging; a DID with no grant is its own principal.
   */
  principalOf(did: string, now: number): string {
    const grant = this.liveGrantFor(did, now) ?? this.latestFor(did);
    if (!grant) return did;
    const rootId = grant.chain[grant.chain.length - 1];
    return rootId === undefined ? grant.aud : this.nodes.get(rootId)?.aud ?? grant.aud;
  }

  private latestFor(aud: string): GrantNode | null {
    const ids = this.byAudience.get(aud);
    return ids && ids.length > 0 ? this.nodes.get(ids[ids.length - 1]!)! : null;
  }
}

function push(map: Map<string, string[]>, key: string, id: string): void {
  const list = map.get(key);
  if (list) list.push(id);
  else map.set(key, [id]);
}
