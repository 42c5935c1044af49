/** One JSON round trip with a peer for the handshake and the pair's life (10 s); an unreachable peer is PAIR_HANDSHAKE_FAILED. */
import { LoomError } from '../../../core/errors/loom-error.js';
import { parsePeerJson } from '../peer-json.js';
import { untilAborted } from '../until-aborted.js';

const TIMEOUT_MS = 10_000;

export async function exchange(url: string, init: RequestInit): Promise<{ status: number; body: unknown }> {
  let answer: Response;
  let text: string;
  const signal = AbortSignal.timeout(TIMEOUT_MS);
  try {
    answer = await untilAborted(fetch(url, { ...init, signal }), signal);
    text = await untilAborted(answer.text(), signal);
  } catch (error) {
    throw new LoomError('PAIR_HANDSHAKE_FAILED', `${new URL(url).pathname} on the peer could not be reached (${(error as { cause?: { code?: string } })?.cause?.code ?? (error as Error)?.name})`);
  }
  let body: unknown = null;
  try {
    body = text.length > 0 ? parsePeerJson(text, `the peer's answer to ${new URL(url).pathname}`) : null;
  } catch {
    body = null;
  }
  return { status: answer.status, body };
}

/** A signed JSON POST to the peer. */
export const postSigned = (url: string, body: unknown) => exchange(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify(body) });
