/**
 * Namespace ids (spec §2.2): `/`-separated segments; the implicit default
 * namespace has no segments. Levels by segment count: DEFAULT(0), ORG(1),
 * PROJECT(2), ENV(3), JOB(4).
 */
export const NAMESPACE_LEVELS = ['DEFAULT', 'ORG', 'PROJECT', 'ENV', 'JOB'] as const;
export type NamespaceLevel = (typeof NAMESPACE_LEVELS)[number];

export const DEFAULT_NAMESPACE = 'default';
export const NAMESPACE_MAX_LENGTH = 256;
export const NAMESPACE_SEGMENT_MAX_LENGTH = 63;
const SEGMENT = /^[a-z0-9][a-z0-9_-]*$/;

/** Null when the id is well formed, otherwise the rule it breaks. */
export function namespaceSyntaxError(id: string): string | null {
  if (id === DEFAULT_NAMESPACE) return null;
  if (id.length === 0) return 'must not be empty';
  if (id.length > NAMESPACE_MAX_LENGTH) return `must be at most ${NAMESPACE_MAX_LENGTH} characters`;
  const segments = id.split('/');
  if (segments.length > NAMESPACE_LEVELS.length - 1) return `must have at most ${NAMESPACE_LEVELS.length - 1} segments (ORG/PROJECT/ENV/JOB)`;
  if (segments[0] === DEFAULT_NAMESPACE) return 'must not start with "default": the default namespace has no children';
  for (const segment of segments) {
    if (!SEGMENT.test(segment)) return `segment "${segment}" must match [a-z0-9][a-z0-9_-]*`;
    if (segment.length > NAMESPACE_SEGMENT_MAX_LENGTH) return `segment "${segment}" must be at most ${NAMESPACE_SEGMENT_MAX_LENGTH} characters`;
  }
  return null;
}

export function namespaceLevel(id: string): NamespaceLevel {
  if (id === DEFAULT_NAMESPACE) return 'DEFAULT';
  return NAMESPACE_LEVELS[id.split('/').length] ?? 'JOB';
}

/** The chain from the top ancestor down to the namespace itself: "a/b/c" → ["a", "a/b", "a/b/c"]. */
export function namespaceChain(id: string): string[] {
  if (id === DEFAULT_NAMESPACE) return [];
  const segments = id.split('/');
  return segments.map((_, i) => segments.slice(0, i + 1).join('/'));
}
