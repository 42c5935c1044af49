/**
 * Export and import of a member (spec §4.15): a bundle (bundle.ts) out of
 * one instance, into a member defined again with the same label on another.
 *
 * Import plans everything before the first write (import-plan.ts): the
 * version, the digest, every memory and trust figure, and the names already
 * held; any problem is 400 IMPORT_FAILED and nothing is written. A dry run
 * answers the plan (200). Otherwise, holding the member's memory section,
 * it plans again against what is held now (another writer may have added a
 * name meanwhile), writes the memories, then one trust import record on the
 * member's trust thread (when the bundle carries trust and the trust plugin
 * is loaded), which the trust fold weighs discounted (trust-import.ts).
 */
import { actingDid, SYSTEM, type Caller } from '../../../core/access/caller.js';
import { token } from '../../../core/di/token.js';
import type { RecordWriter } from '../../../core/engine/record-writer.js';
import type { JsonObject } from '../../../core/records/json.js';
import type { Sha256Hex } from '../../../core/records/sha256.js';
import { KIND_TRUST_IMPORT, type TrustImportBody, type TrustService } from '../../trust/index.js';
import type { MemberEntry } from '../member-registry-fold.js';
import { BUNDLE_VERSION, bundleDigest, type BundleMemory, type MemberBundle } from './bundle.js';
import { planImport, type ImportPlan } from './import-plan.js';
import { notRetired } from './memory-access.js';
import type { MemoryService } from './memory-service.js';
import { fieldsOfMemory, trustThread } from './memory.js';

export interface BundleServiceDeps {
  readonly memory: MemoryService;
  readonly writer: RecordWriter;
  /** This instance: the exporter named in bundles, and the writer of import records. */
  readonly instanceDid: string;
  /** The trust plugin's service, when it is loaded. */
  readonly trust: () => TrustService | null;
  readonly sha256Hex: Sha256Hex;
  readonly now: () => number;
}

export interface ImportRequest {
  readonly bundle: MemberBundle;
  /** In [0, 1]: the share of the source's trust weights imported. @default 0.5 */
  readonly trust_discount: number;
  /** Keep memories already held under a bundle's names and add the rest; false refuses the import when any name is held. @default false */
  readonly merge: boolean;
  /** Check and answer, write nothing. @default false */
  readonly dry_run: boolean;
}

export interface ImportResult {
  object: 'member_import';
  did: string;
  display_name: string;
  category: string;
  status: string;
  /** The member the bundle was exported from. */
  source_did: string;
  memories_imported: number;
  skills_imported: number;
  /** Memories not written because the member holds one of the name (merge). */
  memories_skipped: number;
  trust_domains_imported: number;
  pattern_count: number;
  memory_type_counts: Record<string, number>;
  trust_summaries: ImportPlan['trust'];
  dry_run: boolean;
}

export function identityOf(entry: MemberEntry): MemberBundle['identity'] {
  const body = entry.current;
  return { did: entry.did, display_name: body.display_name, category: body.mechanism, status: body.retired ? 'retired' : body.enabled ? 'active' : 'disabled' };
}

const byName = (a: BundleMemory, b: BundleMemory) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

export class BundleService {
  constructor(private readonly deps: BundleServiceDeps) {}

  async export(caller: Caller, did: string, includeMemories: boolean): Promise<MemberBundle> {
    const entry = this.deps.memory.access(caller, did);
    const all = this.deps.memory.live(did).map((memory) => fieldsOfMemory(memory.body) as BundleMemory);
    const trust = this.deps.trust();
    // Only verdicts judged here: trust imported from elsewhere is not passed on (no laundering round a loop of instances).
    const listing = trust ? await trust.rows(caller, { actor: did, imported: false }, 'actor_domain') : null;
    const domains = (listing?.rows ?? [])
      .map((row) => ({ domain: row.domain, successes: row.successes, failures: row.failures, weighted_successes: row.weighted_successes, weighted_total: row.weighted_total, score: row.score, judges: row.judges }))
      .sort((a, b) => (a.domain < b.domain ? -1 : a.domain > b.domain ? 1 : 0));
    const content: Omit<MemberBundle, 'digest'> = {
      object: 'member_bundle',
      bundle_version: BUNDLE_VERSION,
      identity: identityOf(entry),
      trust_profile: { instance: this.deps.instanceDid, as_of: new Date(listing?.asOf ?? this.deps.now()).toISOString(), half_life_days: 90, domains },
      skills: all.filter((memory) => memory.memory_type === 'skill').sort(byName),
      patterns: [],
      ...(includeMemories ? { memories: all.filter((memory) => memory.memory_type !== 'skill').sort(byName) } : {}),
    };
    return { ...content, digest: bundleDigest(content, this.deps.sha256Hex) };
  }

  async import(caller: Caller, did: string, request: ImportRequest): Promise<ImportResult> {
    const entry = notRetired(this.deps.memory.access(caller, did, false));
    const trustLoaded = this.deps.trust() !== null;
    const plan = () => planImport(entry, request, this.heldNames(did), this.deps.sha256Hex, trustLoaded);
    if (request.dry_run) return this.result(entry, request, plan(), true);
    const done = await this.deps.memory.section(did, async () => {
      const fresh = plan();
      const by = actingDid(caller);
      const bundle = request.bundle;
      await this.deps.memory.writeImported(did, by, fresh.items, { did: bundle.identity.did, instance: bundle.trust_profile.instance, digest: bundle.digest });
      if (fresh.trustRecord) await this.writeTrust(did, by, request);
      return fresh;
    });
    return this.result(entry, request, done, false);
  }

  private heldNames(did: string): Set<string> {
    return new Set(this.deps.memory.live(did).map((memory) => memory.body.name));
  }

  private async writeTrust(did: string, by: string, request: ImportRequest): Promise<void> {
    const { bundle } = request;
    const body: TrustImportBody = {
      kind: KIND_TRUST_IMPORT,
      worker: did,
      discount: request.trust_discount,
      domains: bundle.trust_profile.domains.map(({ domain, successes, failures, weighted_successes, weighted_total, score }) => ({ domain, successes, failures, weighted_successes, weighted_total, score })),
      source: { instance: bundle.trust_profile.instance, member: bundle.identity.did, digest: bundle.digest, as_of: bundle.trust_profile.as_of },
      by,
    };
    await this.deps.writer.appendAs(SYSTEM, { thread: trustThread(did), act: 'LEARN', actor: this.deps.instanceDid, plugin: 'members', body: body as unknown as JsonObject });
  }

  private result(entry: MemberEntry, request: ImportRequest, plan: ImportPlan, dryRun: boolean): ImportResult {
    return {
      object: 'member_import',
      ...identityOf(entry),
      source_did: request.bundle.identity.did,
      memories_imported: plan.memoriesImported,
      skills_imported: plan.skillsImported,
      memories_skipped: plan.skipped,
      trust_domains_imported: plan.trust.filter((summary) => summary.imported_weighted_total > 0).length,
      pattern_count: request.bundle.patterns.length,
      memory_type_counts: plan.typeCounts,
      trust_summaries: plan.trust,
      dry_run: dryRun,
    };
  }
}

export const BundleServiceToken = token<BundleService>('members.BundleService');
