/**
 * Rewrites a filter's LIKE pattern (`%` any run, `_` one code point, `\`
 * escapes the next character, a trailing `\` is literal: see
 * storage/contract/query/like-pattern.ts) for SQLite:
 * - `$like` is case-sensitive, but SQLite's LIKE folds ASCII case, so it
 *   becomes a GLOB pattern (GLOB is case-sensitive; `*` `?` `[` are its specials);
 * - `$ilike` becomes `LIKE ? ESCAPE '\'`, whose ASCII-only folding is exactly
 *   the reference `foldAsciiCase`. The pattern is re-escaped because SQLite
 *   never matches a pattern that ends in its escape character.
 */
type LikeToken = { readonly kind: 'literal'; readonly char: string } | { readonly kind: 'any' } | { readonly kind: 'one' };

function tokens(pattern: string): LikeToken[] {
  const chars = [...pattern];
  const out: LikeToken[] = [];
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i]!;
    if (ch === '\\' && i + 1 < chars.length) out.push({ kind: 'literal', char: chars[++i]! });
    else if (ch === '%') out.push({ kind: 'any' });
    else if (ch === '_') out.push({ kind: 'one' });
    else out.push({ kind: 'literal', char: ch });
  }
  return out;
}

const GLOB_SPECIAL = new Set(['*', '?', '[']);

/** A GLOB pattern matching exactly what the LIKE pattern matches, case-sensitively. */
export function likeToGlob(pattern: string): string {
  return tokens(pattern)
    .map((t) => (t.kind === 'any' ? '*' : t.kind === 'one' ? '?' : GLOB_SPECIAL.has(t.char) ? `[${t.char}]` : t.char))
    .join('');
}

const LIKE_SPECIAL = new Set(['%', '_', '\\']);

/** The same pattern for `LIKE ? ESCAPE '\'`, with every literal special escaped. */
export function likeForSqlite(pattern: string): string {
  return tokens(pattern)
    .map((t) => (t.kind === 'any' ? '%' : t.kind === 'one' ? '_' : LIKE_SPECIAL.has(t.char) ? `\\${t.char}` : t.char))
    .join('');
}
