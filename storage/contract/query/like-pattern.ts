/**
 * SQL LIKE patterns as linear-time matchers: `%` any run, `_` exactly one
 * character (code point), `\` escapes the next character. `$ilike` folds ASCII
 * letters only, exactly like SQLite's built-in LIKE, so both drivers agree.
 *
 * They run on the RE2 automaton of linear-regex.ts, not on `RegExp`: a
 * backtracking `^[^]*a[^]*b[^]*c…$` costs a power of the text's length per
 * `%` when it fails; the automaton reads the text once.
 */
import { RE2JS } from 're2js';
import { ANY_CHARACTER, literalAtom, type LinearRegex } from './linear-regex.js';

export function likeMatcher(pattern: string): LinearRegex {
  let source = '^';
  const chars = [...pattern];
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i]!;
    if (ch === '\\' && i + 1 < chars.length) source += literalAtom(chars[++i]!);
    else if (ch === '%') source += `${ANY_CHARACTER}*`;
    else if (ch === '_') source += ANY_CHARACTER;
    else source += literalAtom(ch);
  }
  return RE2JS.compile(source + '$');
}

export function foldAsciiCase(text: string): string {
  return text.replace(/[A-Z]/g, (ch) => String.fromCharCode(ch.charCodeAt(0) + 32));
}
