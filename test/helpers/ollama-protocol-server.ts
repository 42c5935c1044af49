/**
 * A local HTTP server that speaks Ollama's embedding API exactly as the
 * search plugin's client sees it: `POST /api/embed` with `{model, input}`
 * (a string or an array of strings; `truncate`, `keep_alive`, `options`,
 * `dimensions` accepted) answers `{model, embeddings, total_duration,
 * load_duration, prompt_eval_count}`; an unknown model answers 404
 * `{"error": "model \"x\" not found, try pulling it first"}`, a malformed
 * request 400 `{"error": ...}`. No weights here: a model's vector for a text
 * is a deterministic bag of words (each lowercased word hashed to a
 * dimension, with a sign), so texts that share words are close and ranking
 * tests mean something. Tests can make it fail (`failWith`), slow it down
 * (`delayMs`) or stop it, and count what it was asked.
 */
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface OllamaProtocolServer {
  readonly url: string;
  /** Model name → dimensions it answers. */
  readonly models: Map<string, number>;
  /** Requests answered (any status). */
  requests: number;
  /** Inputs embedded. */
  inputs: number;
  /** Answer every request with this status and error until cleared (null). */
  failWith: { status: number; error: string } | null;
  /** Inputs containing this text are refused alone with 400 (a batch containing one is refused whole, as an over-long input would be). */
  refuseInputContaining: string | null;
  delayMs: number;
  close(): Promise<void>;
}

const WORD = /[\p{L}\p{N}]+/gu;

/** The deterministic vector of `text` in `dims` dimensions (not normalised, as a real server's need not be). */
export function bagOfWordsVector(text: string, dims: number): number[] {
  const vector = new Array<number>(dims).fill(0);
  for (const match of text.toLowerCase().matchAll(WORD)) {
    const digest = createHash('sha256').update(match[0]).digest();
    const index = digest.readUInt32LE(0) % dims;
    vector[index]! += digest[4]! & 1 ? 1 : -1;
  }
  vector[0]! += 0.01; // never the zero vector
  return vector.map((x) => x * 2.5);
}

export async function startOllamaProtocolServer(options: { models?: Record<string, number>; port?: number } = {}): Promise<OllamaProtocolServer> {
  const models = new Map(Object.entries(options.models ?? { 'nomic-embed-text': 64 }));
  let server: Server;
  const state: OllamaProtocolServer = {
    url: '',
    models,
    requests: 0,
    inputs: 0,
    failWith: null,
    refuseInputContaining: null,
    delayMs: 0,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
  const send = (res: import('node:http').ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
    res.end(JSON.stringify(body));
  };
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      state.requests += 1;
      const answer = () => {
        if (req.method !== 'POST' || req.url !== '/api/embed') return send(res, 404, { error: `${req.method} ${req.url} not found` });
        if (state.failWith) return send(res, state.failWith.status, { error: state.failWith.error });
        let body: { model?: unknown; input?: unknown };
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          return send(res, 400, { error: 'invalid character looking for beginning of value' });
        }
        if (typeof body.model !== 'string' || body.model === '') return send(res, 400, { error: 'model is required' });
        const dims = models.get(body.model) ?? models.get(body.model.replace(/:latest$/, ''));
        if (dims === undefined) return send(res, 404, { error: `model "${body.model}" not found, try pulling it first` });
        const inputs = typeof body.input === 'string' ? [body.input] : body.input;
        if (!Array.isArray(inputs) || !inputs.every((x) => typeof x === 'string')) return send(res, 400, { error: 'invalid input type' });
        if (state.refuseInputContaining !== null && inputs.some((x) => x.includes(state.refuseInputContaining!))) return send(res, 400, { error: 'input length exceeds the context length' });
        state.inputs += inputs.length;
        send(res, 200, {
          model: body.model,
          embeddings: inputs.map((text) => bagOfWordsVector(text, dims)),
          total_duration: 1_000_000,
          load_duration: 100_000,
          prompt_eval_count: inputs.reduce((n, text) => n + (text.match(WORD)?.length ?? 0), 0),
        });
      };
      if (state.delayMs > 0) setTimeout(answer, state.delayMs);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  (state as { url: string }).url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return state;
}
