import { Type } from 'typebox';
import { RECORD_SCHEMA } from '../../../core/records/record-schema.js';
import type { LoomRecord } from '../../../core/records/record.js';

// The record schema is closed (additionalProperties: false), so an allOf with {score} would admit
// nothing: the scored record is the record's schema with `score` added.
export const ScoredRecord = Type.Unsafe<LoomRecord & { score: number }>({
  ...RECORD_SCHEMA,
  $id: 'ScoredRecord',
  description: 'A stored record with its similarity score.',
  required: [...RECORD_SCHEMA.required, 'score'],
  properties: { ...RECORD_SCHEMA.properties, score: { type: 'number', description: 'Cosine similarity to the query, -1 to 1.' } },
});

export const SearchResult = Type.Object(
  {
    object: Type.Literal('list'),
    embedder: Type.String({ description: '<provider_kind>:<model>, e.g. ollama:nomic-embed-text.' }),
    k: Type.Integer({ description: 'The k applied (after clamping to 1..100).' }),
    data: Type.Array(ScoredRecord, { description: 'At most k records, most similar first.' }),
  },
  { $id: 'SearchResult' },
);

export const EmbedReport = Type.Object(
  {
    object: Type.Literal('embed_report'),
    embedder: Type.String(),
    embedded: Type.Integer({ description: 'Records embedded by this call.' }),
    skipped_empty: Type.Integer({ description: 'Records examined that have no text to embed.' }),
    failed: Type.Integer({ description: 'Records the embedding server refused on their own (passed over for this model).' }),
    remaining: Type.Integer({ description: 'Records of the log not yet examined under the active model (the background embedder works through them too).' }),
    has_more: Type.Boolean({ description: 'Call again until false.' }),
  },
  { $id: 'EmbedReport' },
);

const Snippet = Type.Object(
  {
    text: Type.String(),
    offsets: Type.Array(Type.Array(Type.Integer(), { minItems: 2, maxItems: 2 }), { description: '[start, end) of each matched word in text, in UTF-16 code units (JavaScript string indices).' }),
  },
  { $id: 'FindSnippet' },
);

export const FindHit = Type.Object(
  {
    object: Type.Literal('find_hit'),
    type: Type.Union([Type.Literal('thread'), Type.Literal('material')]),
    score: Type.Number({ description: 'BM25F score (fields weighted title ×3, path ×1.5, text ×1; k1 1.2, b 0.75); comparable within one answer only.' }),
    title: Type.String({ description: "A thread's gist (its first title, else its first words) or a file's name." }),
    snippet: Snippet,
    why: Type.Array(Type.String(), { description: 'The fields that matched: title, text (threads); name, path, content (files).' }),
    thread: Type.Optional(Type.String()),
    record: Type.Optional(Type.String({ description: 'The best-matching record of the thread.' })),
    participants: Type.Optional(Type.Array(Type.String(), { description: 'Actors who wrote on the thread (first 20).' })),
    namespace: Type.Optional(Type.String()),
    path: Type.Optional(Type.String()),
    node: Type.Optional(
      Type.Object({
        path: Type.String(),
        size_bytes: Type.Integer(),
        content_type: Type.Union([Type.String(), Type.Null()]),
        content_hash: Type.Union([Type.String(), Type.Null()]),
        modified_at: Type.Union([Type.String(), Type.Null()]),
      }),
    ),
    explain: Type.Optional(
      Type.Object(
        {
          plane: Type.String({ description: 'threads, names or content.' }),
          bm25: Type.Number(),
          rank: Type.Integer({ description: 'Position among every matching document before visibility and one-hit-per-thread.' }),
          boosts: Type.Record(Type.String(), Type.Number()),
          terms: Type.Record(Type.String(), Type.Number(), { description: "Each matched term's share of the score." }),
          query_terms: Type.Array(Type.String()),
        },
        { additionalProperties: true },
      ),
    ),
  },
  { $id: 'FindHit' },
);

export const FindResult = Type.Object(
  {
    object: Type.Literal('list'),
    q: Type.String(),
    data: Type.Array(FindHit),
    planes_served: Type.Array(Type.String(), { description: 'names, content (files) and threads, as asked by types.' }),
    planes_degraded: Type.Array(Type.String(), { description: 'Planes still being indexed (after a start or rebuild) or unavailable (no data plane).' }),
  },
  { $id: 'FindResult' },
);

export const SearchStats = Type.Object(
  {
    object: Type.Literal('search_stats'),
    find: Type.Object({}, { additionalProperties: true, description: 'documents, indexed_through, log_position, coverage, pending_records, pending_namespaces, rebuilding, last_failure.' }),
    semantic: Type.Object({}, { additionalProperties: true, description: 'enabled, embedder, provider_state, last_failure, and per model: vectors, frontier, pending_records, failed_records, index.' }),
  },
  { $id: 'SearchStats' },
);
