/**
 * What an import would write, or why it cannot apply (400 IMPORT_FAILED),
 * decided from the bundle and the names the member holds, before any
 * write. Checked: the version; the digest over the whole content (so any
 * edited or damaged field refuses the bundle); that the bundle is of a
 * member with the same label (the slug its DID begins with); skills are of
 * type skill and the other memories are not; every memory as POST would
 * check it, names unique; every trust domain coherent
 * (sourceEvidenceProblem), domains unique; and, without merge, that the
 * member holds none of the bundle's names (with merge those are kept and
 * skipped).
 */
import { LoomError } from '../../../core/errors/loom-error.js';
import type { Sha256Hex } from '../../../core/records/sha256.js';
import { discountedEvidence, sourceEvidenceProblem } from '../../trust/index.js';
import type { MemberEntry } from '../member-registry-fold.js';
import { BUNDLE_VERSION, bundleDigest, type BundleMemory, type MemberBundle } from './bundle.js';
import { checked } from './memory-input.js';
import { memoryFields, type MemoryFields } from './memory.js';

export interface TrustSummary {
  domain: string;
  source_score: number;
  source_weighted_total: number;
  imported_weighted_successes: number;
  imported_weighted_total: number;
  /** Wilson lower bound of the imported weights as of the import: never above source_score. */
  imported_score: number;
}

export interface ImportPlan {
  /** The memories to write, skills first. */
  items: MemoryFields[];
  skillsImported: number;
  memoriesImported: number;
  skipped: number;
  typeCounts: Record<string, number>;
  /** One per domain with evidence; empty without the trust plugin. */
  trust: TrustSummary[];
  /** Whether a trust import record is written. */
  trustRecord: boolean;
}

export interface PlanRequest {
  readonly bundle: MemberBundle;
  readonly trust_discount: number;
  readonly merge: boolean;
}

const fail = (message: string): never => {
  throw new LoomError('IMPORT_FAILED', `${message}; nothing was imported`);
};

/** The label part of a member DID (`did:sync:agent:<slug>-<16 hex>`), or null for another DID. */
export function memberSlug(did: string): string | null {
  return /^did:sync:agent:(.+)-[0-9a-f]{16}$/.exec(did)?.[1] ?? null;
}

const round4 = (value: number) => Math.round(value * 10_000) / 10_000;

export function planImport(entry: MemberEntry, request: PlanRequest, held: ReadonlySet<string>, sha256Hex: Sha256Hex, trustLoaded: boolean): ImportPlan {
  const { bundle } = request;
  if (bundle.bundle_version !== BUNDLE_VERSION) fail(`bundle_version ${bundle.bundle_version} is not ${BUNDLE_VERSION}, the one this instance reads`);
  if (bundleDigest(bundle, sha256Hex) !== bundle.digest) fail('the digest does not match the bundle’s content: it was damaged or edited');
  const theirs = memberSlug(bundle.identity.did);
  const ours = memberSlug(entry.did);
  if (theirs !== null && ours !== null && theirs !== ours) fail(`the bundle is of member "${theirs}", not "${ours}": define the member with the same label first`);
  const names = new Set<string>();
  const take = (memory: BundleMemory, where: string): MemoryFields => {
    const fields = checked(memoryFields(memory), 'IMPORT_FAILED', `${where}: `);
    if (names.has(fields.name)) fail(`${where}: the name ${JSON.stringify(fields.name)} appears twice`);
    names.add(fields.name);
    return fields;
  };
  const skills = bundle.skills.map((memory, i) => {
    if (memory.memory_type !== 'skill') fail(`skills[${i}] is of type ${memory.memory_type}, not skill`);
    return take(memory, `skills[${i}]`);
  });
  const others = (bundle.memories ?? []).map((memory, i) => {
    if (memory.memory_type === 'skill') fail(`memories[${i}] is a skill: skills travel in skills`);
    return take(memory, `memories[${i}]`);
  });
  const domains = new Set<string>();
  bundle.trust_profile.domains.forEach((domain, i) => {
    const problem = sourceEvidenceProblem(domain);
    if (problem !== null) fail(`trust_profile.domains[${i}]: ${problem}`);
    if (domains.has(domain.domain)) fail(`trust_profile.domains[${i}]: domain ${JSON.stringify(domain.domain)} appears twice`);
    domains.add(domain.domain);
  });
  const clashes = [...names].filter((name) => held.has(name));
  if (clashes.length > 0 && !request.merge) {
    const shown = clashes.slice(0, 5).map((name) => JSON.stringify(name)).join(', ');
    fail(`the member already holds memories named ${shown}${clashes.length > 5 ? ` and ${clashes.length - 5} more` : ''}: import with merge to keep them and add the rest`);
  }
  const fresh = (fields: MemoryFields) => !held.has(fields.name);
  const items = [...skills.filter(fresh), ...others.filter(fresh)];
  const typeCounts: Record<string, number> = {};
  for (const item of items) typeCounts[item.memory_type] = (typeCounts[item.memory_type] ?? 0) + 1;
  const trust: TrustSummary[] = trustLoaded
    ? bundle.trust_profile.domains.map((domain) => {
        const evidence = discountedEvidence(domain, request.trust_discount);
        return {
          domain: domain.domain,
          source_score: domain.score,
          source_weighted_total: domain.weighted_total,
          imported_weighted_successes: round4(evidence.weightedSuccesses),
          imported_weighted_total: round4(evidence.weightedTotal),
          imported_score: round4(evidence.score),
        };
      })
    : [];
  const skillsImported = items.filter((item) => item.memory_type === 'skill').length;
  return {
    items,
    skillsImported,
    memoriesImported: items.length - skillsImported,
    skipped: names.size - items.length,
    typeCounts,
    trust,
    trustRecord: trustLoaded && bundle.trust_profile.domains.length > 0,
  };
}
