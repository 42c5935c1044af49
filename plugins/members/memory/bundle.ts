/**
 * A member bundle (spec §4.15 export / import): exactly identity (did,
 * display_name, category, status), the trust profile by domain, skills
 * (memories of type skill), patterns, and the other memories only when
 * asked for; never the definition (model, prompt, tools, bounds). Besides
 * those, `bundle_version` (1) and `digest`: `sha256:` + SHA-256 of the
 * canonical JSON (RFC 8785, as record ids) of the bundle without `digest`,
 * so a damaged or edited bundle is refused whole. The digest detects
 * damage, not forgery: anyone can recompute it (docs: who may import).
 *
 * - category: the member's mechanism (llm, human or script);
 * - status: active, disabled or retired;
 * - trust_profile: as the exporting instance showed it (per domain, all
 *   judges together, only verdicts judged there: imported trust is not
 *   passed on), with the instance's DID and the reading time;
 * - patterns: Loom keeps no patterns yet, so an export carries none; an
 *   import counts the ones a bundle brings (`pattern_count`) and keeps none.
 */
import { Type, type Static } from 'typebox';
import { canonicalJson } from '../../../core/records/canonical-json.js';
import type { Sha256Hex } from '../../../core/records/sha256.js';
import { DESCRIPTION_MAX, DOMAIN_MAX, MemoryTypeSchema, NAME_MAX, NAME_PATTERN, TAG_MAX, TAGS_MAX } from './memory.js';

export const BUNDLE_VERSION = 1;
/** Most memories (skills and the others each) a bundle may carry. */
export const BUNDLE_MEMORIES_MAX = 10_000;
export const BUNDLE_DOMAINS_MAX = 1_000;
export const BUNDLE_PATTERNS_MAX = 1_000;

const BundleMemorySchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: NAME_MAX, pattern: NAME_PATTERN }),
    memory_type: MemoryTypeSchema,
    description: Type.String({ minLength: 1, maxLength: DESCRIPTION_MAX }),
    confidence: Type.Number({ minimum: 0, maximum: 1 }),
    tags: Type.Array(Type.String({ minLength: 1, maxLength: TAG_MAX }), { maxItems: TAGS_MAX }),
    source_thread: Type.Union([Type.String({ maxLength: 100 }), Type.Null()]),
    domain: Type.Union([Type.String({ minLength: 1, maxLength: DOMAIN_MAX }), Type.Null()]),
  },
  { additionalProperties: false, $id: 'BundleMemory' },
);

const TrustDomainSchema = Type.Object(
  {
    domain: Type.String({ minLength: 1, maxLength: 200 }),
    successes: Type.Integer({ minimum: 0 }),
    failures: Type.Integer({ minimum: 0 }),
    weighted_successes: Type.Number({ minimum: 0, description: 'Successes weighted by age (90-day half-life) at as_of.' }),
    weighted_total: Type.Number({ minimum: 0 }),
    score: Type.Number({ minimum: 0, maximum: 1, description: 'Wilson lower bound (95%) of the weighted counts.' }),
    judges: Type.Integer({ minimum: 0 }),
  },
  { additionalProperties: false, $id: 'BundleTrustDomain' },
);

export const MemberBundleSchema = Type.Object(
  {
    object: Type.Literal('member_bundle'),
    bundle_version: Type.Integer({ description: `${BUNDLE_VERSION} for this format.` }),
    identity: Type.Object(
      {
        did: Type.String({ minLength: 1, maxLength: 512 }),
        display_name: Type.String({ maxLength: 200 }),
        category: Type.String({ maxLength: 50, description: 'The mechanism: llm, human or script.' }),
        status: Type.String({ maxLength: 50, description: 'active, disabled or retired.' }),
      },
      { additionalProperties: false },
    ),
    trust_profile: Type.Object(
      {
        instance: Type.String({ maxLength: 512, description: 'The exporting instance.' }),
        as_of: Type.String({ maxLength: 40, description: 'The reading time of the figures (ISO 8601).' }),
        half_life_days: Type.Number(),
        domains: Type.Array(TrustDomainSchema, { maxItems: BUNDLE_DOMAINS_MAX }),
      },
      { additionalProperties: false },
    ),
    skills: Type.Array(BundleMemorySchema, { maxItems: BUNDLE_MEMORIES_MAX }),
    patterns: Type.Array(Type.Object({}, { additionalProperties: true }), { maxItems: BUNDLE_PATTERNS_MAX }),
    memories: Type.Optional(Type.Array(BundleMemorySchema, { maxItems: BUNDLE_MEMORIES_MAX, description: 'Only with include_memories: every memory but skills.' })),
    digest: Type.String({ pattern: '^sha256:[0-9a-f]{64}$', description: 'sha256: + SHA-256 of the canonical JSON of the bundle without digest.' }),
  },
  { additionalProperties: false, $id: 'MemberBundle' },
);

export type MemberBundle = Static<typeof MemberBundleSchema>;
export type BundleMemory = Static<typeof BundleMemorySchema>;

/** The digest a bundle must carry. */
export function bundleDigest(bundle: Omit<MemberBundle, 'digest'> & { digest?: string }, sha256Hex: Sha256Hex): string {
  const { digest: _digest, ...content } = bundle;
  return `sha256:${sha256Hex(canonicalJson(content))}`;
}
