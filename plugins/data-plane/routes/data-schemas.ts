/** The data plane's named schemas and shared request parts. */
import { Type } from 'typebox';

const Hash = Type.String({ pattern: '^[0-9a-f]{64}$', description: 'SHA-256 of the content, lowercase hex.' });
const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

export const NamespaceQuery = Type.Optional(
  Type.String({ maxLength: 256, description: 'The namespace whose filesystem is addressed; default: the caller’s only namespace grain, else `default`.' }),
);
export const PathField = Type.String({ maxLength: 16384, description: 'Absolute path within the namespace, e.g. /reports/q3.pdf (grammar in docs/decisions.md).' });

export const DataProvenanceSchema = Type.Object(
  {
    actor: Type.String({ description: 'DID that wrote this content (the write record’s actor).' }),
    record_id: Type.String(),
    clock: Type.Integer(),
    sequence: Type.Integer(),
    content_hash: Hash,
    work_thread: Nullable(Type.String()),
    goal_summary: Nullable(Type.String()),
  },
  { $id: 'DataProvenance' },
);

export const DataNodeSchema = Type.Object(
  {
    object: Type.Literal('data_node'),
    namespace: Type.String(),
    kind: Type.Union([Type.Literal('file'), Type.Literal('directory')]),
    path: Type.String(),
    name: Type.String({ description: 'Last path segment ("" for the root).' }),
    size_bytes: Type.Integer({ minimum: 0 }),
    content_hash: Nullable(Hash),
    content_type: Nullable(Type.String()),
    pin_state: Type.Union([Type.Literal('unpinned'), Type.Literal('pinned')], { description: 'pinned once published.' }),
    storage_class: Nullable(Type.String()),
    created_at: Nullable(Type.String({ format: 'date-time' })),
    modified_at: Nullable(Type.String({ format: 'date-time' })),
    version: Type.Integer({ minimum: 0, description: 'Writes this file has had.' }),
    record_id: Type.String({ description: 'The record of the node’s last change ("" for the root).' }),
    sequence: Type.Integer({ minimum: 0 }),
    provenance: Nullable(DataProvenanceSchema),
  },
  { $id: 'DataNode' },
);

export const DataListingSchema = Type.Object(
  {
    object: Type.Literal('list'),
    namespace: Type.String(),
    path: Type.String(),
    watermark: Type.Integer(),
    entries: Type.Array(DataNodeSchema),
    cursor: Nullable(Type.String({ description: 'Pass as `cursor` for the next page; null at the end.' })),
    has_more: Type.Boolean(),
  },
  { $id: 'DataListing' },
);

export const DataChangeSchema = Type.Object(
  {
    ok: Type.Literal(true),
    namespace: Type.String(),
    changed: Type.Boolean({ description: 'false when nothing needed to change (mkdir of an existing directory, mv onto itself).' }),
    record_id: Nullable(Type.String({ description: 'The node record written.' })),
  },
  { $id: 'DataChange', additionalProperties: true },
);

export const UploadStatusSchema = Type.Object(
  {
    object: Type.Literal('upload'),
    ok: Type.Literal(true),
    upload_id: Type.String(),
    namespace: Type.String(),
    path: Type.String(),
    size_bytes: Type.Integer(),
    chunk_size: Type.Integer(),
    chunks: Type.Integer({ description: 'How many chunks the content has.' }),
    received_bytes: Type.Integer(),
    received_ranges: Type.Array(Type.Tuple([Type.Integer(), Type.Integer()]), { description: 'Inclusive byte ranges that arrived.' }),
    missing_ranges: Type.Array(Type.Tuple([Type.Integer(), Type.Integer()]), { description: 'Inclusive byte ranges still to send, chunk-aligned.' }),
    complete: Type.Boolean({ description: 'Every chunk arrived: POST /v1/data/write/complete.' }),
    expires_at: Type.String({ format: 'date-time', description: 'The upload expires when idle until then; each chunk extends it.' }),
    upload_url: Type.String({ description: 'Where chunks go (PUT with Content-Range).' }),
  },
  { $id: 'UploadStatus' },
);

const LastCollectionSchema = Type.Object(
  {
    at: Type.String({ format: 'date-time' }),
    grace_seconds: Type.Integer({ description: 'The grace the run applied.' }),
    collected_blobs: Type.Integer(),
    freed_bytes: Type.Integer(),
  },
  { $id: 'DataLastCollection' },
);

export const BlobStoreUsageSchema = Type.Object(
  {
    scope: Type.Union([Type.Literal('server'), Type.Literal('shared')], {
      description: "server: this server's own blob directory (SQLite, LevelDB, memory); shared: the blobs in the PostgreSQL database, which every server of the log serves.",
    }),
    blobs: Type.Integer({ description: 'Distinct contents stored.' }),
    stored_bytes: Type.Integer({ description: 'Bytes on disk: live plus reclaimable.' }),
    live_bytes: Type.Integer({ description: 'Content some file of some namespace holds.' }),
    reclaimable_blobs: Type.Integer(),
    reclaimable_bytes: Type.Integer({ description: 'Content no file holds (removed or overwritten): deleted once unreferenced for grace_seconds, or now by POST /v1/data/gc.' }),
    grace_seconds: Type.Integer({ description: 'How long unreferenced content is kept (blobGraceSeconds).' }),
    collect_interval_seconds: Type.Integer({ description: 'How often the collector runs (blobCollectIntervalSeconds).' }),
    last_collection: Nullable(LastCollectionSchema),
  },
  { $id: 'DataBlobStoreUsage', description: "The whole blob store (this server's, or the one shared by the log), every namespace together: live and reclaimable bytes. Shown to admin callers; null for others." },
);

export const CollectionSchema = Type.Object(
  {
    object: Type.Literal('data_gc'),
    at: Type.String({ format: 'date-time' }),
    grace_seconds: Type.Integer(),
    scanned_blobs: Type.Integer(),
    collected_blobs: Type.Integer(),
    freed_bytes: Type.Integer(),
    kept: Type.Object({
      live: Type.Integer({ description: 'A file holds it.' }),
      within_grace: Type.Integer({ description: 'Unreferenced for less than the grace.' }),
      held: Type.Integer({ description: 'An upload completing with this content holds it.' }),
    }),
    reclaimable_bytes: Type.Integer({ description: 'Unreferenced bytes still stored after the run.' }),
  },
  { $id: 'DataCollection' },
);

export const UsageSchema = Type.Object(
  {
    object: Type.Literal('data_usage'),
    namespace: Type.String(),
    used_bytes: Type.Integer({ description: 'Distinct content bytes the namespace’s files hold (what the quota counts).' }),
    quota_bytes: Nullable(Type.Integer({ description: 'null: unlimited.' })),
    available_bytes: Nullable(Type.Integer({ description: 'quota − used − reserved; null when unlimited.' })),
    logical_bytes: Type.Integer({ description: 'Sum of file sizes (identical content counted each time).' }),
    files: Type.Integer(),
    directories: Type.Integer(),
    uploads: Type.Object({ open: Type.Integer(), reserved_bytes: Type.Integer({ description: 'Declared sizes of open uploads (counted against the quota).' }) }),
    blob_store: Nullable(BlobStoreUsageSchema),
  },
  { $id: 'DataUsage' },
);

export { Hash as HashSchema };
