import { Type, type Static } from 'typebox';

export const SearchOptions = Type.Object(
  {
    embedBatchSize: Type.Integer({ minimum: 1, maximum: 512, default: 32, description: 'Records per request to the embedding server.' }),
    embedTimeoutMs: Type.Integer({ minimum: 100, default: 30_000, description: 'Time one embedding request may take.' }),
    embedRetries: Type.Integer({ minimum: 0, maximum: 10, default: 2, description: 'Retries of a request that failed for a reason worth retrying (unreachable, 429, 5xx).' }),
    embedBackoffMs: Type.Integer({ minimum: 1, default: 250, description: 'First retry delay; doubles per retry, with jitter.' }),
    embedBusyShare: Type.Number({ exclusiveMinimum: 0, maximum: 1, default: 0.15, description: 'While records keep arriving, the share of time the background embedder may take (1: no limit); it catches up when the log is quiet.' }),
    maxBackoffMs: Type.Integer({ minimum: 10, default: 60_000, description: 'Longest wait of the background embedder between attempts while the server is down.' }),
    hnswMinVectors: Type.Integer({ minimum: 0, default: 10_000, description: 'Vectors of a model before the HNSW graph is built; exact search below.' }),
    hnswM: Type.Integer({ minimum: 4, maximum: 64, default: 16 }),
    hnswEfConstruction: Type.Integer({ minimum: 10, maximum: 1000, default: 100 }),
    hnswEfSearch: Type.Integer({ minimum: 10, maximum: 1000, default: 100 }),
    findBusyShare: Type.Number({ exclusiveMinimum: 0, maximum: 1, default: 0.3, description: 'While records keep arriving, the share of time the find indexer may take (1: no limit); it catches up when the burst ends.' }),
    findMaxFileBytes: Type.Integer({ minimum: 0, default: 1_048_576, description: 'Text files larger than this are found by name only.' }),
    vectorPollMs: Type.Integer({ minimum: 10, default: 1_000, description: 'Servers sharing a PostgreSQL log: how often a server looks for vectors the leader embedded while the leader is behind the log head (the bound on how late a new vector reaches every server).' }),
    findSnapshotMs: Type.Integer({ minimum: 0, default: 60_000, description: 'Least time between two snapshots of the find index (saved once caught up, and at stop), from which a start indexes only the log after it; 0: no snapshot, every start rebuilds from the whole log.' }),
    findSliceRecords: Type.Integer({ minimum: 10, default: 500, description: 'Records indexed for find before the indexer yields to other work.' }),
  },
  { additionalProperties: false },
);

export type SearchOptions = Static<typeof SearchOptions>;
