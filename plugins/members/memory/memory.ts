/**
 * A member's memory (spec §2.6, §4.15, §8): a `core.actor.memory.v1` record
 * on the member's memory thread (`memberThreadId(did, 'memory')`), written by
 * the instance for whoever used the door (`meta.by`).
 *
 *   created:   {kind, status: 'created', name, memory_type, description,
 *               confidence, tags, source_thread, domain, meta}
 *   cancelled: {kind, status: 'cancelled', name, meta}   (parents: the memory it ends)
 *
 * A later memory of the same name supersedes the earlier one (parents: the
 * one it replaces); the newest stands. `meta` holds the identifiers
 * (member, writer, import provenance) nested, so search reads only the
 * memory's own words (record-text.ts reads top-level strings only).
 */
import { Type, type Static } from 'typebox';
import { memberThreadId } from '../../../core/records/thread-id.js';

export const KIND_MEMORY = 'core.actor.memory.v1';
export const MEMORY_TYPES = ['user', 'feedback', 'project', 'reference', 'skill', 'insight'] as const;
export type MemoryType = (typeof MEMORY_TYPES)[number];
/** Spec §8. */
export const DEFAULT_CONFIDENCE = 0.8;

export const NAME_MAX = 200;
export const DESCRIPTION_MAX = 10_000;
export const TAGS_MAX = 32;
export const TAG_MAX = 64;
export const DOMAIN_MAX = 200;
/** A name is one path segment of DELETE …/memories/{name}: no slash, no control characters. */
export const NAME_PATTERN = '^[^/\\u0000-\\u001f\\u007f]+$';

/** The member's memory thread. */
export const memoryThread = (member: string): string => memberThreadId(member, 'memory');
/** The member's thread for trust imported into it. */
export const trustThread = (member: string): string => memberThreadId(member, 'trust');

export const MemoryTypeSchema = Type.Union([
  Type.Literal('user'),
  Type.Literal('feedback'),
  Type.Literal('project'),
  Type.Literal('reference'),
  Type.Literal('skill'),
  Type.Literal('insight'),
]);

/** The fields of a memory as POST takes them and a bundle carries them. */
export const MemoryInputSchema = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: NAME_MAX, pattern: NAME_PATTERN }),
    memory_type: MemoryTypeSchema,
    description: Type.String({ minLength: 1, maxLength: DESCRIPTION_MAX }),
    confidence: Type.Optional(Type.Number({ minimum: 0, maximum: 1, default: DEFAULT_CONFIDENCE })),
    tags: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: TAG_MAX }), { maxItems: TAGS_MAX })),
    source_thread: Type.Optional(Type.Union([Type.String({ maxLength: 100, description: 'A thread id (th_…).' }), Type.Null()])),
    domain: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: DOMAIN_MAX }), Type.Null()])),
  },
  { additionalProperties: false },
);
export type MemoryInput = Static<typeof MemoryInputSchema>;

/** A memory's own fields, defaults filled (tags trimmed, without repeats, sorted). */
export interface MemoryFields {
  name: string;
  memory_type: MemoryType;
  description: string;
  confidence: number;
  tags: string[];
  source_thread: string | null;
  domain: string | null;
}

/** Where an imported memory came from. */
export interface ImportedFrom {
  /** The member the bundle was exported from. */
  did: string;
  /** The instance that exported it. */
  instance: string;
  /** The bundle's digest. */
  digest: string;
}

export interface MemoryMeta {
  member: string;
  /** Who used the door (the owner, the member itself or an operator). */
  by: string;
  imported_from: ImportedFrom | null;
}

export interface MemoryBody extends MemoryFields {
  kind: typeof KIND_MEMORY;
  status: 'created';
  meta: MemoryMeta;
}

export interface CancellationBody {
  kind: typeof KIND_MEMORY;
  status: 'cancelled';
  name: string;
  meta: { member: string; by: string };
}

export function memoryFields(input: MemoryInput): MemoryFields {
  return {
    name: input.name.trim(),
    memory_type: input.memory_type,
    description: input.description,
    confidence: input.confidence ?? DEFAULT_CONFIDENCE,
    tags: [...new Set((input.tags ?? []).map((tag) => tag.trim()).filter(Boolean))].sort(),
    source_thread: input.source_thread ?? null,
    domain: input.domain ?? null,
  };
}

export function fieldsOfMemory(body: MemoryBody): MemoryFields {
  const { name, memory_type, description, confidence, tags, source_thread, domain } = body;
  return { name, memory_type, description, confidence, tags: [...tags], source_thread, domain };
}
