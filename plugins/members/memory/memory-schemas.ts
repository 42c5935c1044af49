/** Wire schemas of the memory and bundle doors (spec §4.15). */
import { Type } from 'typebox';
import { MemoryTypeSchema } from './memory.js';

const Did = Type.String({ maxLength: 512 });

export const MemoryRowSchema = Type.Object(
  {
    object: Type.Literal('memory'),
    name: Type.String(),
    memory_type: MemoryTypeSchema,
    description: Type.String(),
    confidence: Type.Number(),
    tags: Type.Array(Type.String()),
    source_thread: Type.Union([Type.String(), Type.Null()]),
    domain: Type.Union([Type.String(), Type.Null()]),
    record: Type.String({ description: 'The memory record in force.' }),
    thread: Type.String({ description: 'The member’s memory thread.' }),
    created_at: Type.String({ format: 'date-time' }),
    by: Did,
    imported_from: Type.Union([Type.Object({ did: Did, instance: Did, digest: Type.String() }), Type.Null()], { description: 'For an imported memory: the member, instance and bundle it came from.' }),
  },
  { $id: 'Memory' },
);

export const MemberNameParams = Type.Object(
  { did: Type.String({ minLength: 1, maxLength: 512 }), name: Type.String({ minLength: 1, maxLength: 200 }) },
  { additionalProperties: false },
);

const TrustSummarySchema = Type.Object(
  {
    domain: Type.String(),
    source_score: Type.Number(),
    source_weighted_total: Type.Number(),
    imported_weighted_successes: Type.Number(),
    imported_weighted_total: Type.Number(),
    imported_score: Type.Number({ description: 'Never above source_score.' }),
  },
  { $id: 'ImportTrustSummary' },
);

export const ImportResultSchema = Type.Object(
  {
    object: Type.Literal('member_import'),
    did: Did,
    display_name: Type.String(),
    category: Type.String(),
    status: Type.String(),
    source_did: Did,
    memories_imported: Type.Integer(),
    skills_imported: Type.Integer(),
    memories_skipped: Type.Integer({ description: 'With merge: bundle memories not written because the member holds one of the name.' }),
    trust_domains_imported: Type.Integer(),
    pattern_count: Type.Integer({ description: 'Patterns the bundle carried (Loom keeps none).' }),
    memory_type_counts: Type.Record(Type.String(), Type.Integer()),
    trust_summaries: Type.Array(TrustSummarySchema),
    dry_run: Type.Boolean(),
  },
  { $id: 'MemberImport' },
);
