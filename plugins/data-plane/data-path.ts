/**
 * The path grammar of the data plane. A path names a node inside one
 * namespace's tree:
 *
 *   path    = "/" | 1*( "/" segment )
 *   segment = 1 to 255 UTF-8 bytes, neither "." nor "..", without "/", "\",
 *             NUL, C0 or C1 control characters, DEL, unpaired surrogates or
 *             U+FFFD (the mark of bytes that were not valid UTF-8)
 *
 * At most 4096 UTF-8 bytes and 64 segments in all. Paths are compared
 * after Unicode NFC normalisation, so a name typed on macOS (NFD) and on
 * Linux (NFC) is one node. Everything else is refused with 400 INVALID_PATH
 * and a message that says what is wrong: nothing is silently "cleaned", so a
 * client never writes somewhere it did not name.
 */
import { LoomError } from '../../core/errors/loom-error.js';

export const MAX_PATH_BYTES = 4096;
export const MAX_SEGMENT_BYTES = 255;
export const MAX_DEPTH = 64;
export const ROOT = '/';

// C0 controls, DEL, C1 controls; backslash (a separator on Windows, so an export could not round-trip).
const FORBIDDEN = /[\u0000-\u001f\u007f-\u009f\\]/u;

function refuse(field: string, raw: string, why: string): never {
  const shown = raw.length > 80 ? `${JSON.stringify(raw.slice(0, 80))}…` : JSON.stringify(raw);
  throw new LoomError('INVALID_PATH', `${field} ${shown} ${why}`);
}

/** Checks `raw` against the grammar and answers its normal form, or throws INVALID_PATH naming `field`. */
export function parseDataPath(raw: unknown, field = 'path'): string {
  if (typeof raw !== 'string') throw new LoomError('INVALID_PATH', `${field} must be a string such as "/reports/q3.pdf"`);
  if (raw.length === 0) throw new LoomError('INVALID_PATH', `${field} is empty: paths start with "/" (the namespace root is "/")`);
  if (!raw.isWellFormed()) refuse(field, raw, 'is not well-formed Unicode (an unpaired surrogate)');
  if (raw.includes('\uFFFD')) refuse(field, raw, 'contains U+FFFD, the mark of bytes that were not valid UTF-8');
  const forbidden = FORBIDDEN.exec(raw);
  if (forbidden) {
    const char = forbidden[0] === '\\' ? 'a backslash' : `the control character U+${forbidden[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
    refuse(field, raw, `contains ${char}`);
  }
  if (!raw.startsWith('/')) refuse(field, raw, 'must start with "/" (paths are absolute within the namespace)');
  const path = raw.normalize('NFC');
  if (Buffer.byteLength(path, 'utf8') > MAX_PATH_BYTES) refuse(field, raw, `is longer than ${MAX_PATH_BYTES} bytes`);
  if (path === ROOT) return ROOT;
  if (path.endsWith('/')) refuse(field, raw, 'ends with "/": name the node without a trailing slash');
  const segments = path.slice(1).split('/');
  if (segments.length > MAX_DEPTH) refuse(field, raw, `is deeper than ${MAX_DEPTH} segments`);
  for (const segment of segments) {
    if (segment === '') refuse(field, raw, 'has an empty segment ("//")');
    if (segment === '.' || segment === '..') refuse(field, raw, `has a "${segment}" segment: relative segments are not allowed`);
    if (Buffer.byteLength(segment, 'utf8') > MAX_SEGMENT_BYTES) refuse(field, raw, `has a segment longer than ${MAX_SEGMENT_BYTES} bytes`);
  }
  return path;
}

/** The directory holding `path` ("/" for a top-level node); the root has none. */
export function parentOf(path: string): string | null {
  if (path === ROOT) return null;
  const cut = path.lastIndexOf('/');
  return cut === 0 ? ROOT : path.slice(0, cut);
}

export function nameOf(path: string): string {
  return path === ROOT ? '' : path.slice(path.lastIndexOf('/') + 1);
}

export function joinPath(directory: string, name: string): string {
  return directory === ROOT ? `/${name}` : `${directory}/${name}`;
}

/** `path` equals `ancestor` or lies beneath it. */
export function isWithin(path: string, ancestor: string): boolean {
  return ancestor === ROOT || path === ancestor || path.startsWith(`${ancestor}/`);
}

/** Every proper ancestor of `path`, outermost first, excluding the root. */
export function ancestorsOf(path: string): string[] {
  const out: string[] = [];
  for (let parent = parentOf(path); parent !== null && parent !== ROOT; parent = parentOf(parent)) out.unshift(parent);
  return out;
}
