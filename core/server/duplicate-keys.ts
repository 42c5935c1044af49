/**
 * The first member name that occurs twice in one object of a JSON text, or
 * null. JSON.parse keeps the last; two parsers may keep different ones and
 * so derive different record ids from the same bytes, which is why I-JSON
 * (RFC 7493 §2.3) forbids duplicates and Loom refuses them. A single pass
 * over text that JSON.parse has already accepted (so it is well formed).
 */
export function firstDuplicateKey(text: string): string | null {
  // Cheap exit: a text without two member separators cannot repeat a key.
  if (text.indexOf(':') === text.lastIndexOf(':')) return null;
  const stack: Array<Set<string> | null> = [];
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      const start = i + 1;
      // The closing quote: the next quote not escaped (preceded by an even number of backslashes).
      let end = text.indexOf('"', start);
      let escaped = false;
      for (;;) {
        let backslashes = 0;
        while (text.charCodeAt(end - 1 - backslashes) === 0x5c) backslashes++;
        if (backslashes > 0) escaped = true;
        if (backslashes % 2 === 0) break;
        end = text.indexOf('"', end + 1);
      }
      if (!escaped && text.indexOf('\\', start) !== -1 && text.indexOf('\\', start) < end) escaped = true;
      i = end;
      const top = stack[stack.length - 1];
      if (expectKey && top) {
        const raw = text.slice(start, i);
        const key = escaped ? (JSON.parse(`"${raw}"`) as string) : raw;
        if (top.has(key)) return key;
        top.add(key);
        expectKey = false;
      }
    } else if (c === 0x7b /* { */) {
      stack.push(new Set());
      expectKey = true;
    } else if (c === 0x5b /* [ */) {
      stack.push(null);
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      stack.pop();
    } else if (c === 0x2c /* , */) {
      expectKey = stack[stack.length - 1] !== null && stack.length > 0;
    }
  }
  return null;
}
