/** planImport: everything a bundle may get wrong is IMPORT_FAILED before any write; merge skips held names. */
import { expect } from 'chai';
import { canonicalJson } from '../../../core/records/canonical-json.js';
import { nobleSha256Hex } from '../../../core/records/sha256.js';
import type { MemberEntry } from '../member-registry-fold.js';
import { bundleDigest, type MemberBundle } from './bundle.js';
import { memberSlug, planImport } from './import-plan.js';
import type { MemoryType } from './memory.js';

const TARGET = { did: 'did:sync:agent:reviewer-1111111111111111', current: {} } as unknown as MemberEntry;
const memory = (name: string, memory_type: MemoryType) => ({ name, memory_type, description: `about ${name}`, confidence: 0.8, tags: [], source_thread: null, domain: null });

function bundle(edit: (content: Omit<MemberBundle, 'digest'>) => void = () => {}): MemberBundle {
  const content = {
    object: 'member_bundle' as const,
    bundle_version: 1,
    identity: { did: 'did:sync:agent:reviewer-0000000000000000', display_name: 'Reviewer', category: 'llm', status: 'active' },
    trust_profile: { instance: 'did:sync:system:loom-a', as_of: '2025-01-01T00:00:00.000Z', half_life_days: 90, domains: [{ domain: 'code', successes: 9, failures: 1, weighted_successes: 9, weighted_total: 10, score: 0.5958, judges: 2 }] },
    skills: [memory('lint', 'skill')],
    patterns: [],
    memories: [memory('lead', 'user'), memory('style', 'feedback')],
  } as unknown as Omit<MemberBundle, 'digest'>;
  edit(content);
  return { ...content, digest: bundleDigest(content, nobleSha256Hex) };
}

const plan = (b: MemberBundle, held: string[] = [], merge = false) => planImport(TARGET, { bundle: b, trust_discount: 0.5, merge }, new Set(held), nobleSha256Hex, true);
const fails = (b: MemberBundle, held: string[] = []) => expect(() => plan(b, held)).to.throw().with.property('code', 'IMPORT_FAILED');

describe('planImport', () => {
  it('plans skills and memories, counts by type and discounts trust', () => {
    const planned = plan(bundle());
    expect(planned).to.deep.include({ skillsImported: 1, memoriesImported: 2, skipped: 0, trustRecord: true });
    expect(planned.typeCounts).to.deep.equal({ skill: 1, user: 1, feedback: 1 });
    expect(planned.trust[0]).to.include({ domain: 'code', imported_weighted_total: 5, source_score: 0.5958 });
    expect(planned.trust[0]!.imported_score).to.be.below(0.5958);
  });

  it('refuses a damaged digest, another version, another label, misplaced types, repeats and incoherent trust', () => {
    fails({ ...bundle(), patterns: [{ any: 1 }] });
    fails(bundle((c) => (c.bundle_version = 2)));
    fails(bundle((c) => (c.identity.did = 'did:sync:agent:writer-0000000000000000')));
    fails(bundle((c) => (c.skills = [memory('lint', 'user')])));
    fails(bundle((c) => (c.memories = [memory('lint', 'skill')])));
    fails(bundle((c) => (c.memories = [memory('lint', 'user')])));
    fails(bundle((c) => (c.memories = [{ ...memory('x', 'user'), source_thread: 'nope' }])));
    fails(bundle((c) => (c.trust_profile.domains = [{ ...c.trust_profile.domains[0]!, weighted_successes: 11 }])));
    fails(bundle((c) => (c.trust_profile.domains = [c.trust_profile.domains[0]!, c.trust_profile.domains[0]!])));
  });

  it('refuses held names without merge; with merge keeps them and plans the rest', () => {
    fails(bundle(), ['lead']);
    const merged = plan(bundle(), ['lead'], true);
    expect(merged).to.deep.include({ memoriesImported: 1, skipped: 1 });
    expect(merged.items.map((item) => item.name)).to.deep.equal(['lint', 'style']);
  });

  it('takes a bundle of a DID that is not a member DID (another system) without the label check', () => {
    expect(memberSlug('did:sync:agent:reviewer-0000000000000000')).to.equal('reviewer');
    expect(memberSlug('did:web:example.com')).to.equal(null);
    expect(() => plan(bundle((c) => (c.identity.did = 'did:web:example.com')))).not.to.throw();
    expect(canonicalJson(bundle()).length).to.be.greaterThan(0);
  });
});
