/** Options of the data-plane plugin. */
import { Type, type Static } from 'typebox';

export const MIB = 1024 * 1024;

export const DataPlaneOptions = Type.Object(
  {
    /** Upload chunk size (prior art: 8 MiB). @default 8388608 */
    chunkSizeBytes: Type.Integer({ minimum: 64 * 1024, maximum: 256 * MIB, default: 8 * MIB }),
    /** Largest file. @default 68719476736 (64 GiB) */
    maxFileBytes: Type.Integer({ minimum: 1, default: 64 * 1024 * MIB }),
    /** An upload idle this long expires and its bytes are reclaimed. @default 86400 */
    uploadTtlSeconds: Type.Integer({ minimum: 10, maximum: 30 * 86_400, default: 86_400 }),
    /** How often expired uploads are looked for. @default 600 */
    sweepIntervalSeconds: Type.Integer({ minimum: 1, maximum: 86_400, default: 600 }),
    /** Default lifetime of a signed read URL. @default 900 */
    readUrlSeconds: Type.Integer({ minimum: 1, maximum: 7 * 86_400, default: 900 }),
    /** Longest lifetime a client may ask for. @default 604800 (7 days) */
    readUrlMaxSeconds: Type.Integer({ minimum: 1, maximum: 30 * 86_400, default: 7 * 86_400 }),
    /** Quota of a namespace without a data_quota entry; null: unlimited. @default null */
    defaultQuotaBytes: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { default: null }),
    /** Free space an upload must leave on the data volume (a full disk refuses early). @default 67108864 */
    minFreeBytes: Type.Integer({ minimum: 0, default: 64 * MIB }),
    /**
     * Content no file of any namespace holds is deleted once it has been unreferenced this long (blob-collector.ts);
     * 0 collects at the next run. @default 86400
     */
    blobGraceSeconds: Type.Integer({ minimum: 0, maximum: 365 * 86_400, default: 86_400 }),
    /** How often this server looks for content to collect. @default 3600 */
    blobCollectIntervalSeconds: Type.Integer({ minimum: 1, maximum: 7 * 86_400, default: 3600 }),
  },
  { additionalProperties: false },
);

export type DataPlaneOptions = Static<typeof DataPlaneOptions>;
