/**
 * Data-plane transfer: a 1 GiB file (× BENCH_SCALE) through the HTTP API of a
 * real `loom serve` process on 127.0.0.1, against plain file I/O of the same
 * bytes on the same filesystem, measured in the same run.
 * - upload: init → one PUT per 8 MiB chunk streamed from the file (never
 *   buffered whole) → complete. Baseline: a sequential write of the same
 *   bytes in 8 MiB pieces to a new file, fsynced at the end (the data plane
 *   fsyncs each chunk). Goal: baseline time ÷ upload time ≥ 0.5.
 * - download: GET /v1/blobs/{hash} read to the end. Baseline: a sequential
 *   read of the same file. Both from a warm page cache. Goal ≥ 0.7.
 * - memory: the server's RSS sampled every 20 ms during the upload, above
 *   its RSS just before. Goal < 150 MB.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomFillSync } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open, readFile } from 'node:fs/promises';
import { request } from 'node:http';
import { createServer, connect } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fmt, log, main, makeTempDir, ratioCheck, round, SCALE, type Check } from './support/harness.js';

const LOOM = fileURLToPath(new URL('../bin/loom.js', import.meta.url));
const MIB = 1024 * 1024;
const CHUNK = 8 * MIB;
const SIZE = Math.max(CHUNK, Math.round((1024 * SCALE) / 8) * CHUNK);
const PORT = 19_420;

async function writeRandomFile(path: string): Promise<string> {
  const hash = createHash('sha256');
  const handle = await open(path, 'w');
  const piece = Buffer.alloc(CHUNK);
  for (let done = 0; done < SIZE; done += CHUNK) {
    randomFillSync(piece);
    hash.update(piece);
    await handle.write(piece);
  }
  await handle.close();
  return hash.digest('hex');
}

/** The plain-I/O baseline: the same bytes written sequentially to a new file, fsynced. */
async function plainWrite(source: string, target: string): Promise<number> {
  const began = performance.now();
  const out = await open(target, 'w');
  for await (const piece of createReadStream(source, { highWaterMark: CHUNK })) await out.write(piece as Buffer);
  await out.sync();
  await out.close();
  return performance.now() - began;
}

async function plainRead(path: string): Promise<number> {
  const began = performance.now();
  let bytes = 0;
  for await (const piece of createReadStream(path, { highWaterMark: MIB })) bytes += (piece as Buffer).length;
  if (bytes !== SIZE) throw new Error(`read ${bytes} bytes`);
  return performance.now() - began;
}

async function rssMb(pid: number): Promise<{ rss: number; hwm: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0) / 1024;
  return { rss: field('VmRSS'), hwm: field('VmHWM') };
}

async function json(url: string, method: string, body: unknown): Promise<any> {
  const response = await fetch(url, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const answer = await response.json();
  if (!response.ok) throw new Error(`${method} ${url}: ${response.status} ${JSON.stringify(answer)}`);
  return answer;
}

/** One chunk, streamed from the file into a PUT. */
function putChunk(url: string, file: string, start: number, end: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'PUT', headers: { 'content-type': 'application/octet-stream', 'content-length': String(end - start + 1), 'content-range': `bytes ${start}-${end}/${SIZE}` } }, (res) => {
      res.resume();
      res.once('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`PUT ${start}-${end}: ${res.statusCode}`))));
    });
    req.once('error', reject);
    createReadStream(file, { start, end, highWaterMark: MIB }).pipe(req);
  });
}

async function upload(base: string, file: string, path: string, parallel: number): Promise<{ ms: number; hash: string }> {
  const began = performance.now();
  const init = await json(`${base}/v1/data/write/init`, 'POST', { path, size_bytes: SIZE });
  const starts: number[] = [];
  for (let start = 0; start < SIZE; start += init.chunk_size) starts.push(start);
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < starts.length) {
        const start = starts[next++]!;
        await putChunk(`${base}${init.upload_url}`, file, start, Math.min(start + init.chunk_size, SIZE) - 1);
      }
    }),
  );
  const done = await json(`${base}/v1/data/write/complete`, 'POST', { upload_id: init.upload_id });
  return { ms: performance.now() - began, hash: done.content_hash };
}

/** GET of the whole blob with node:http, counting bytes (fetch's web streams would measure the client, not the server). */
function download(base: string, hash: string): Promise<number> {
  const began = performance.now();
  return new Promise((resolve, reject) => {
    request(`${base}/v1/blobs/${hash}`, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`GET blob: ${res.statusCode}`));
      let bytes = 0;
      res.on('data', (piece: Buffer) => (bytes += piece.length));
      res.once('end', () => (bytes === SIZE ? resolve(performance.now() - began) : reject(new Error(`downloaded ${bytes} bytes`))));
      res.once('error', reject);
    })
      .once('error', reject)
      .end();
  });
}

/** What any HTTP server pays at least: the same file piped through a loopback TCP socket to a reader that counts. */
async function socketTransfer(file: string): Promise<number> {
  const server = createServer((socket) => createReadStream(file, { highWaterMark: MIB }).pipe(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  const began = performance.now();
  await new Promise<void>((resolve, reject) => {
    let bytes = 0;
    const socket = connect(port, '127.0.0.1');
    socket.on('data', (piece: Buffer) => (bytes += piece.length));
    socket.once('end', () => (bytes === SIZE ? resolve() : reject(new Error(`socket moved ${bytes} bytes`))));
    socket.once('error', reject);
  });
  const ms = performance.now() - began;
  await new Promise((resolve) => server.close(resolve));
  return ms;
}

async function startServer(dir: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [LOOM, 'serve', '--data-dir', dir, '--port', String(PORT), '--insecure-localhost', '--log-level', 'warn'], { stdio: ['ignore', 'ignore', 'inherit'] });
  for (;;) {
    if (child.exitCode !== null) throw new Error(`loom serve exited with ${child.exitCode}`);
    try {
      if ((await fetch(`http://127.0.0.1:${PORT}/health`)).status === 200) return child;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

main(import.meta.url, {
  name: 'data-plane',
  title: `Data plane: a ${fmt(SIZE / MIB)} MiB file through a real loom serve vs plain file I/O`,
  async run() {
    const dir = makeTempDir('data-plane');
    const source = join(dir, 'source.bin');
    const expected = await writeRandomFile(source);
    const server = await startServer(join(dir, 'server'));
    const base = `http://127.0.0.1:${PORT}`;
    try {
      // Warm-up: a small upload pays for lazy initialisation.
      await json(`${base}/v1/data/mkdir`, 'POST', { path: '/bench' });

      const writeMs: number[] = [];
      const uploadMs: number[] = [];
      let idle = 0;
      let peak = 0;
      let hwm = 0;
      let hash = '';
      for (let round_ = 0; round_ < 2; round_++) {
        writeMs.push(await plainWrite(source, join(dir, `plain-${round_}.bin`)));
        idle = (await rssMb(server.pid!)).rss;
        let sampling = true;
        const sampler = (async () => {
          while (sampling) {
            const { rss, hwm: high } = await rssMb(server.pid!);
            peak = Math.max(peak, rss - idle);
            hwm = Math.max(hwm, high);
            await new Promise((r) => setTimeout(r, 20));
          }
        })();
        const result = await upload(base, source, `/bench/file-${round_}.bin`, 1);
        sampling = false;
        await sampler;
        if (result.hash !== expected) throw new Error(`upload hashed to ${result.hash}, expected ${expected}`);
        uploadMs.push(result.ms);
        hash = result.hash;
      }
      const parallel = await upload(base, source, '/bench/parallel.bin', 2);

      const readMs: number[] = [];
      const downloadMs: number[] = [];
      const socketMs: number[] = [];
      for (let round_ = 0; round_ < 3; round_++) {
        readMs.push(await plainRead(source));
        socketMs.push(await socketTransfer(source));
        downloadMs.push(await download(base, hash));
      }

      const best = (values: number[]) => Math.min(...values);
      const mibPerS = (ms: number) => SIZE / MIB / (ms / 1000);
      const figures = {
        size_mib: SIZE / MIB,
        chunk_mib: CHUNK / MIB,
        plain_write_ms: writeMs.map((ms) => round(ms, 0)),
        upload_ms: uploadMs.map((ms) => round(ms, 0)),
        upload_2_parallel_ms: round(parallel.ms, 0),
        plain_read_ms: readMs.map((ms) => round(ms, 0)),
        download_ms: downloadMs.map((ms) => round(ms, 0)),
        upload_mib_s: round(mibPerS(best(uploadMs)), 0),
        plain_write_mib_s: round(mibPerS(best(writeMs)), 0),
        download_mib_s: round(mibPerS(best(downloadMs)), 0),
        plain_read_mib_s: round(mibPerS(best(readMs)), 0),
        loopback_socket_mib_s: round(mibPerS(best(socketMs)), 0),
        server_idle_rss_mb: round(idle, 0),
        server_peak_rss_above_idle_mb: round(peak, 0),
        server_vm_hwm_mb: round(hwm, 0),
      };
      log(`upload ${fmt(figures.upload_mib_s)} MiB/s (2 chunks at a time: ${fmt(mibPerS(parallel.ms))} MiB/s) vs plain write ${fmt(figures.plain_write_mib_s)} MiB/s`);
      log(`download ${fmt(figures.download_mib_s)} MiB/s vs plain read ${fmt(figures.plain_read_mib_s)} MiB/s and a bare loopback socket ${fmt(figures.loopback_socket_mib_s)} MiB/s`);
      log(`server RSS: idle ${fmt(idle)} MB, peak ${fmt(peak)} MB above idle during the upload (VmHWM ${fmt(hwm)} MB)`);
      const checks: Check[] = [
        ratioCheck('upload ÷ plain write (throughput)', best(writeMs) / best(uploadMs), '>=', 0.5, `${fmt(figures.upload_mib_s)} vs ${fmt(figures.plain_write_mib_s)} MiB/s`),
        ratioCheck('download ÷ plain read (throughput)', best(readMs) / best(downloadMs), '>=', 0.7, `${fmt(figures.download_mib_s)} vs ${fmt(figures.plain_read_mib_s)} MiB/s`),
        ratioCheck('download ÷ bare loopback socket transfer (throughput)', best(socketMs) / best(downloadMs), '>=', 0.7, `${fmt(figures.download_mib_s)} vs ${fmt(figures.loopback_socket_mib_s)} MiB/s`),
        ratioCheck('server peak RSS above idle during upload (MB ÷ 150)', peak / 150, '<=', 1, `${fmt(peak)} MB above an idle ${fmt(idle)} MB`),
      ];
      return {
        figures,
        checks,
        notes: [
          'Best of the rounds for each throughput; baselines are measured between the rounds on the same filesystem (tmpfs or disk, whatever os.tmpdir() is).',
          'Upload = init + streamed PUT per 8 MiB chunk (each fsynced, hashed as it arrives) + complete (rename into the blob store, node record).',
        ],
      };
    } finally {
      const exited = new Promise((r) => server.once('exit', r));
      server.kill('SIGTERM');
      await exited;
    }
  },
});
