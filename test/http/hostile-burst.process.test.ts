/**
 * A burst of malformed requests against a real `loom serve` in its own
 * process (security issue item 8a): every one is answered in the envelope,
 * the event loop is never held over 100 ms, and after a forced full GC the
 * server's memory is back near where it started.
 *
 * What is measured: the child runs with `--expose-gc` and a test-only preload
 * (test/helpers/gc-on-signal.ts) that, on SIGUSR2, collects twice and reports
 * `process.memoryUsage()`. Baseline and final figures are both taken after
 * such a collection, once the server has served a warm-up round of 1,000 of the
 * same requests (so lazily compiled code, Node's pools and the C allocator's
 * working set are in the baseline).
 * `heapUsed` after a full GC is what is really retained; RSS also counts heap
 * pages V8 keeps and memory the C allocator has not returned, so it gets the
 * looser bound. Event-loop delay is prom-client's
 * `nodejs_eventloop_lag_max_seconds` (perf_hooks.monitorEventLoopDelay,
 * reset at each scrape) from `GET /metrics`, scraped just before and just
 * after the burst.
 */
import { expect } from 'chai';
import { fileURLToPath } from 'node:url';
import { resolve } from 'node:path';
import { startLoomProcess, type LoomProcess } from '../helpers/loom-process.js';
import { parseRaw, openSocket, type RawAnswer } from '../helpers/raw-http.js';

const GC_PRELOAD = resolve(fileURLToPath(new URL('.', import.meta.url)), '../helpers/gc-on-signal.js');
const BURST = 3000;
const CONCURRENCY = 16;
const MB = 1024 * 1024;

const THREAD = 'th_' + '0'.repeat(64);
const MALFORMED: ReadonlyArray<(i: number) => string> = [
  () => `POST /v1/records HTTP/1.1\r\nhost: x\r\nconnection: close\r\ncontent-type: application/json\r\ncontent-length: 9\r\n\r\n{"a": bad`,
  () => `POST /v1/records HTTP/1.1\r\nhost: x\r\nconnection: close\r\ncontent-type: text/plain\r\ncontent-length: 5\r\n\r\nhello`,
  // 1.25 MiB, chunked, past the 1 MiB limit: read, refused with 413, the rest drained.
  () => `POST /v1/records HTTP/1.1\r\nhost: x\r\nconnection: close\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n${`10000\r\n${'y'.repeat(0x10000)}\r\n`.repeat(20)}0\r\n\r\n`,
  (i) => `GET /v1/records?thread=zz${i}&limit=abc HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n`,
  (i) => `GET /no/such/route/${i}/${'r'.repeat(i % 500)} HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n`,
  (i) => `GET /v1/threads HTTP/1.1\r\nhost: x\r\nconnection: close\r\nauthorization: Bearer loom_live_${i}_${'t'.repeat(200)}\r\n\r\n`,
  (i) => `GET /v1/data/list?namespace=n${i}&path=${'q'.repeat(100_000)} HTTP/1.1\r\nhost: x\r\n\r\n`,
  (i) => `GET /health HTTP/1.1\r\nhost: x\r\nx-big-${i}: ${'h'.repeat(100_000)}\r\n\r\n`,
  (i) => `GARBAGE ${i} NOT HTTP\r\n\r\n`,
  (i) => `GET /v1/threads/${THREAD}/records?after=${'9'.repeat(1000 + (i % 4000))} HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n`,
];

async function send(url: string, text: string): Promise<RawAnswer> {
  const socket = await openSocket(url);
  const started = Date.now();
  return new Promise((done) => {
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => socket.destroy(), 15_000);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    // A refusal sent before the whole body was written can end in a reset; what arrived is still parsed.
    socket.on('error', () => {});
    socket.once('close', () => {
      clearTimeout(timer);
      done(parseRaw(Buffer.concat(chunks).toString('utf8'), Date.now() - started));
    });
    socket.write(text);
  });
}

async function burst(url: string, count: number): Promise<RawAnswer[]> {
  const answers: RawAnswer[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < count) {
        const i = next++;
        answers.push(await send(url, MALFORMED[i % MALFORMED.length]!(i)));
      }
    }),
  );
  return answers;
}

interface Memory {
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
  collected: boolean;
}

async function collectedMemory(server: LoomProcess): Promise<Memory> {
  const seen = server.stderr().length;
  server.child.kill('SIGUSR2');
  for (let i = 0; i < 100; i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    const match = /memory (\{.*\})\n/.exec(server.stderr().slice(seen));
    if (match) return JSON.parse(match[1]!) as Memory;
  }
  throw new Error('the server did not report its memory');
}

async function eventLoopLagMaxMs(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const match = /^nodejs_eventloop_lag_max_seconds (\S+)$/m.exec(text);
  if (!match) throw new Error('no nodejs_eventloop_lag_max_seconds in /metrics');
  return Number(match[1]) * 1000;
}

describe('a burst of malformed requests (loom serve process)', function () {
  this.timeout(120_000);
  let server: LoomProcess;
  after(async () => {
    await server?.stop();
    await server?.remove();
  });

  it(`answers ${BURST} malformed requests in the envelope, never holds the event loop 100 ms, and keeps no memory`, async () => {
    server = await startLoomProcess({ args: ['--insecure-localhost'], nodeArgs: ['--expose-gc', '--import', GC_PRELOAD] });
    // The warm-up reaches the C allocator's working set for this mix too, so RSS growth after it is what the burst keeps.
    await burst(server.url, 1000);
    const before = await collectedMemory(server);
    expect(before.collected, 'gc exposed in the server').to.equal(true);

    await eventLoopLagMaxMs(server.url);
    const started = Date.now();
    const answers = await burst(server.url, BURST);
    const burstMs = Date.now() - started;
    let lagMaxMs = await eventLoopLagMaxMs(server.url);

    const unanswered = answers.filter((a) => a.status === 0).length;
    const outside = answers.filter((a) => a.status !== 0 && !(a.status >= 400 && a.headers['content-type']?.startsWith('application/json') && a.json?.object === 'error'));
    const statuses = new Map<number, number>();
    for (const a of answers) statuses.set(a.status, (statuses.get(a.status) ?? 0) + 1);

    await new Promise((resolve) => setTimeout(resolve, 1000));
    const after = await collectedMemory(server);
    const figures = {
      burst_ms: burstMs,
      statuses: Object.fromEntries(statuses),
      lag_max_ms: lagMaxMs,
      rss_mb: [before.rss / MB, after.rss / MB].map((x) => +x.toFixed(1)),
      heap_used_mb: [before.heapUsed / MB, after.heapUsed / MB].map((x) => +x.toFixed(1)),
      heap_total_mb: [before.heapTotal / MB, after.heapTotal / MB].map((x) => +x.toFixed(1)),
      external_mb: [before.external / MB, after.external / MB].map((x) => +x.toFixed(1)),
    };
    // A request that holds the event loop does so in every burst; a pause because another process took the
    // core (the delay monitor counts descheduling too) does not recur on cue. So a burst over the bound is
    // repeated, at most twice, and the lowest maximum counts.
    for (let retry = 0; lagMaxMs >= 100 && retry < 2; retry++) {
      await eventLoopLagMaxMs(server.url);
      await burst(server.url, BURST);
      lagMaxMs = Math.min(lagMaxMs, await eventLoopLagMaxMs(server.url));
    }
    figures.lag_max_ms = lagMaxMs;
    // Printed so the figures are on record with the run.
    console.log(`      ${JSON.stringify(figures)}`);

    expect(outside.map((a) => `${a.status} ${a.body.slice(0, 80)}`), 'answers outside the envelope').to.deep.equal([]);
    // A 413 sent while the client is still writing may be lost to a reset; every other request must be answered.
    expect(unanswered, 'requests with no answer').to.be.at.most(BURST / MALFORMED.length / 10);
    expect((await fetch(`${server.url}/health`)).status).to.equal(200);
    expect(lagMaxMs, 'event-loop delay during the burst').to.be.below(100);
    expect((after.heapUsed - before.heapUsed) / MB, 'heap retained after GC, MB').to.be.below(10);
    expect((after.rss - before.rss) / MB, 'RSS growth after GC, MB').to.be.below(50);
  });
});
