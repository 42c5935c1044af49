/**
 * A peer's JSON is read as strictly as a client's request body: one linear
 * scan first (core/server/scan-json-text.ts), so a page whose numbers JSON
 * would round (the record would be stored with other content than the peer
 * signed, under an id computed over the rounded value), that names a member
 * twice, or that nests or spreads beyond reason is a PARSE_ERROR on the pair,
 * not a record. Pages hold many records, so the value budget is larger than
 * a request's.
 */
import { describeFinding, scanJsonText, type JsonTextLimits } from '../../core/server/scan-json-text.js';
import { PairError } from './pair-error.js';

const PEER_LIMITS: JsonTextLimits = { maxDepth: 128, maxMembers: 10_000, maxValues: 20_000_000 };

export function parsePeerJson(text: string, what: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new PairError('PARSE_ERROR', `${what} is not valid JSON: ${(error as Error).message}`);
  }
  const finding = scanJsonText(text, PEER_LIMITS);
  if (finding) throw new PairError('PARSE_ERROR', describeFinding(finding, what));
  return value;
}
