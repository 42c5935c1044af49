/**
 * Any server serves any file (issue 36): two `loom serve` processes on one
 * throwaway PostgreSQL cluster; a 64 MiB file is uploaded in chunks through
 * server A only. Then it is downloaded through Debian's nginx from A (the
 * server that stored it) and from B (one that did not), each behind its own
 * nginx with one upstream, rounds alternating. Target: B's throughput ÷ A's
 * ≥ 0.8. On PostgreSQL both read the same chunk rows, so the ratio shows
 * that no server pays for not having stored the file.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { postgresUnavailable, ThrowawayCluster } from '../storage/postgres/throwaway-cluster.js';
import { nginxUnavailable, startNginx } from '../test/helpers/nginx.js';
import { fmt, log, main, makeTempDir, percentile, ratioCheck, round, scaled, type Check } from './support/harness.js';

const LOOM = fileURLToPath(new URL('../bin/loom.js', import.meta.url));
const SIZE = scaled(64 * 1024 * 1024, 8 * 1024 * 1024);
const CHUNK = 8 * 1024 * 1024;
const ROUNDS = scaled(8, 3);

async function startLoom(databaseUrl: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [LOOM, 'serve', '--storage', 'postgres', '--database-url', databaseUrl, '--data-dir', makeTempDir('data-plane-servers'), '--port', '0', '--insecure-localhost', '--log-level', 'warn'], { stdio: ['ignore', 'ignore', 'pipe'] });
  const url = await new Promise<string>((resolve, reject) => {
    let text = '';
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      text += chunk;
      const found = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(text);
      if (found) resolve(found[1]!);
    });
    child.once('exit', (code) => reject(new Error(`loom serve exited ${code}: ${text}`)));
  });
  child.stderr!.resume();
  return { url, child };
}

async function call(url: string, method: string, body?: unknown, headers: Record<string, string> = {}, raw?: Buffer): Promise<any> {
  const response = await fetch(url, { method, headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers }, ...(raw ? { body: raw } : body !== undefined ? { body: JSON.stringify(body) } : {}) });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`${method} ${url}: ${response.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

/** Seconds to fetch `url` whole, reading the stream to its end. */
async function download(url: string, expected: number): Promise<number> {
  const began = performance.now();
  const response = await fetch(url);
  if (response.status !== 200) throw new Error(`GET ${url}: ${response.status}`);
  let bytes = 0;
  for await (const piece of response.body as unknown as AsyncIterable<Uint8Array>) bytes += piece.length;
  if (bytes !== expected) throw new Error(`GET ${url}: ${bytes} bytes, expected ${expected}`);
  return (performance.now() - began) / 1000;
}

main(import.meta.url, {
  name: 'data-plane-servers',
  title: 'A file downloaded through nginx from a server that did not store it vs the one that did (PostgreSQL)',
  async run() {
    const problem = postgresUnavailable() ?? nginxUnavailable();
    if (problem) throw new Error(`cannot run: ${problem}`);
    const cluster = await ThrowawayCluster.start({ fsync: true });
    const servers: Array<{ url: string; child: ChildProcess }> = [];
    try {
      const databaseUrl = await cluster.createDatabase('data_plane_servers');
      servers.push(await startLoom(databaseUrl));
      servers.push(await startLoom(databaseUrl));
      const [stored, other] = [servers[0]!, servers[1]!];
      const content = Buffer.alloc(SIZE);
      for (let i = 0; i < SIZE; i += 4) content.writeUInt32LE((i * 2654435761) >>> 0, i);
      const hash = createHash('sha256').update(content).digest('hex');
      const started = performance.now();
      const init = await call(`${stored.url}/v1/data/write/init`, 'POST', { path: '/bench/file.bin', size_bytes: SIZE, content_type: 'application/octet-stream' });
      for (let start = 0; start < SIZE; start += CHUNK) {
        const end = Math.min(start + CHUNK, SIZE) - 1;
        await call(`${stored.url}/v1/blobs/upload/${init.upload_id}`, 'PUT', undefined, { 'content-type': 'application/octet-stream', 'content-range': `bytes ${start}-${end}/${SIZE}` }, content.subarray(start, end + 1));
      }
      await call(`${stored.url}/v1/data/write/complete`, 'POST', { upload_id: init.upload_id, content_hash: hash });
      log(`    uploaded ${fmt(SIZE / 1024 / 1024)} MiB through server A in ${round((performance.now() - started) / 1000, 1)} s`);
      const [viaStored, viaOther] = [await startNginx([stored.url]), await startNginx([other.url])];
      try {
        const path = `/v1/blobs/${hash}`;
        await download(viaStored.url + path, SIZE);
        await download(viaOther.url + path, SIZE);
        const seconds: [number[], number[]] = [[], []];
        for (let r = 0; r < ROUNDS; r++) {
          seconds[0].push(await download(viaStored.url + path, SIZE));
          seconds[1].push(await download(viaOther.url + path, SIZE));
        }
        const mbps = seconds.map((list) => SIZE / 1024 / 1024 / percentile(list, 50));
        log(`    through nginx: from A (stored it) ${round(mbps[0]!, 1)} MiB/s, from B (did not) ${round(mbps[1]!, 1)} MiB/s (medians of ${ROUNDS})`);
        const checks: Check[] = [ratioCheck('download from a server that did not store the file ÷ from the one that did', mbps[1]! / mbps[0]!, '>=', 0.8, `${round(mbps[1]!, 1)} vs ${round(mbps[0]!, 1)} MiB/s`)];
        return { figures: { size_bytes: SIZE, rounds: ROUNDS, seconds_stored: seconds[0], seconds_other: seconds[1], mib_per_s: mbps.map((x) => round(x, 1)) }, checks };
      } finally {
        await viaStored.stop();
        await viaOther.stop();
      }
    } finally {
      for (const server of servers) server.child.kill('SIGTERM');
      await cluster.stop();
    }
  },
});
