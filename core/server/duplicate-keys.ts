/**
 * The first member name that occurs twice in one object of a JSON text, or
 * null (I-JSON, RFC 7493 §2.3). For texts that only need that check, such as
 * an imported log; request bodies get the full scan-json-text.ts pass.
 */
import { scanJsonText } from './scan-json-text.js';

const NO_LIMITS = { maxDepth: Infinity, maxMembers: Infinity, maxValues: Infinity };

export function firstDuplicateKey(text: string): string | null {
  // Cheap exit: a text without two member separators cannot repeat a key.
  if (text.indexOf(':') === text.lastIndexOf(':')) return null;
  const finding = scanJsonText(text, NO_LIMITS);
  return finding?.kind === 'duplicate' ? finding.key : null;
}
