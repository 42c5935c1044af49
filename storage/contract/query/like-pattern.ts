/**
 * SQL LIKE patterns as regular expressions: `%` any run, `_` exactly one
 * character (code point), `\` escapes the next character. `$ilike` folds ASCII
 * letters only, exactly like SQLite's built-in LIKE, so both drivers agree.
 */
// Only syntax characters: with the `u` flag any other escape is a SyntaxError.
const REGEX_SPECIAL = /[.*+?^${}()|[\]\\/]/g;

export function likeToRegExp(pattern: string): RegExp {
  let source = '^';
  const chars = [...pattern];
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i]!;
    if (ch === '\\' && i + 1 < chars.length) {
      source += chars[++i]!.replace(REGEX_SPECIAL, '\\$&');
    } else if (ch === '%') {
      source += '[^]*';
    } else if (ch === '_') {
      source += '.';
    } else {
      source += ch.replace(REGEX_SPECIAL, '\\$&');
    }
  }
  return new RegExp(source + '$', 'su');
}

export function foldAsciiCase(text: string): string {
  return text.replace(/[A-Z]/g, (ch) => String.fromCharCode(ch.charCodeAt(0) + 32));
}
