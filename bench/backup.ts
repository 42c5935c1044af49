/**
 * Online backup: `loom backup` against a plain HTTP client that streams
 * `POST /v1/backup` to a file (what `curl -o` does), both against one real
 * `loom serve` holding BACKUP_MB of file bytes (random, so gzip cannot
 * shrink them), measured in the same run, alternating.
 * - throughput: plain fetch time ÷ CLI time, and curl's ÷ CLI's when curl is
 *   installed. Goal ≥ 0.8.
 * - memory: the CLI process's peak RSS (VmHWM). Goal < 150 MB.
 *
 *   BENCH_BACKUP_MB=500 node dist/bench/backup.js   # the size (default 64 × BENCH_SCALE, at least 16)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomFillSync } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { readFile, rm, stat } from 'node:fs/promises';
import { request } from 'node:http';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { fmt, log, main, makeTempDir, ratioCheck, round, SCALE, type Check } from './support/harness.js';

const LOOM = fileURLToPath(new URL('../bin/loom.js', import.meta.url));
const MIB = 1024 * 1024;
const CHUNK = 8 * MIB;
const BACKUP_MB = Number(process.env['BENCH_BACKUP_MB'] ?? Math.max(16, Math.round(64 * SCALE)));
const FILE_MB = 64;
const PORT = 19_421;
const BASE = `http://127.0.0.1:${PORT}`;

async function json(url: string, method: string, body: unknown): Promise<any> {
  const response = await fetch(url, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const answer = await response.json();
  if (!response.ok) throw new Error(`${method} ${url}: ${response.status} ${JSON.stringify(answer)}`);
  return answer;
}

/** Uploads `size` random bytes as one file, one 8 MiB chunk per PUT. */
async function uploadRandom(path: string, size: number): Promise<void> {
  const init = await json(`${BASE}/v1/data/write/init`, 'POST', { path, size_bytes: size });
  const piece = Buffer.alloc(init.chunk_size);
  for (let start = 0; start < size; start += init.chunk_size) {
    const end = Math.min(start + init.chunk_size, size);
    randomFillSync(piece);
    const response = await fetch(`${BASE}${init.upload_url}`, { method: 'PUT', headers: { 'content-type': 'application/octet-stream', 'content-range': `bytes ${start}-${end - 1}/${size}` }, body: piece.subarray(0, end - start) });
    await response.arrayBuffer();
    if (!response.ok) throw new Error(`PUT ${start}: ${response.status}`);
  }
  await json(`${BASE}/v1/data/write/complete`, 'POST', { upload_id: init.upload_id });
}

/** What `curl -X POST … -o file` does: the answer's bytes straight to a file. */
function plainFetch(target: string): Promise<number> {
  const began = performance.now();
  return new Promise((resolve, reject) => {
    request(`${BASE}/v1/backup`, { method: 'POST' }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`POST /v1/backup: ${res.statusCode}`));
      pipeline(res, createWriteStream(target)).then(() => resolve(performance.now() - began), reject);
    })
      .once('error', reject)
      .end();
  });
}

/** `curl -X POST … -o file`, when curl is installed (null otherwise). */
function curlFetch(target: string): Promise<number | null> {
  const began = performance.now();
  return new Promise((resolve) => {
    const child = spawn('curl', ['-sf', '-X', 'POST', '-o', target, `${BASE}/v1/backup`], { stdio: 'ignore' });
    child.once('error', () => resolve(null));
    child.once('exit', (code) => resolve(code === 0 ? performance.now() - began : null));
  });
}

async function vmHwmMb(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  return Number(/^VmHWM:\s+(\d+) kB/m.exec(status)?.[1] ?? 0) / 1024;
}

/** `loom backup -o target`, with its peak RSS sampled from /proc until it exits. */
async function cliBackup(target: string): Promise<{ ms: number; peakMb: number }> {
  const began = performance.now();
  const child = spawn(process.execPath, [LOOM, 'backup', '-o', target, '--url', BASE], { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, LOOM_TOKEN: '' } });
  let peak = 0;
  let running = true;
  const exited = new Promise<number>((resolve) => child.once('exit', (code) => ((running = false), resolve(code ?? 1))));
  while (running) {
    peak = Math.max(peak, await vmHwmMb(child.pid!));
    await new Promise((r) => setTimeout(r, 20));
  }
  const code = await exited;
  if (code !== 0) throw new Error(`loom backup exited with ${code}`);
  return { ms: performance.now() - began, peakMb: peak };
}

async function startServer(dir: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [LOOM, 'serve', '--data-dir', dir, '--port', String(PORT), '--insecure-localhost', '--log-level', 'warn'], { stdio: ['ignore', 'ignore', 'inherit'] });
  for (;;) {
    if (child.exitCode !== null) throw new Error(`loom serve exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${BASE}/health`)).status === 200) return child;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

main(import.meta.url, {
  name: 'backup',
  title: `Online backup of ${fmt(BACKUP_MB)} MB of file bytes: loom backup vs a plain HTTP fetch of POST /v1/backup`,
  async run() {
    const dir = makeTempDir('backup');
    const server = await startServer(join(dir, 'server'));
    try {
      for (let done = 0, n = 0; done < BACKUP_MB; done += FILE_MB, n++) await uploadRandom(`/bench/file-${n}.bin`, Math.min(FILE_MB, BACKUP_MB - done) * MIB);
      const plainMs: number[] = [];
      const cliMs: number[] = [];
      let cliPeak = 0;
      let bytes = 0;
      const curlMs: number[] = [];
      const plain = async (round_: number) => {
        const plainFile = join(dir, `plain-${round_}.tar.gz`);
        plainMs.push(await plainFetch(plainFile));
        bytes = (await stat(plainFile)).size;
        await rm(plainFile);
        const curled = await curlFetch(plainFile);
        if (curled !== null) curlMs.push(curled);
        await rm(plainFile, { force: true });
      };
      const viaCli = async (round_: number) => {
        const cliFile = join(dir, `cli-${round_}.tar.gz`);
        const cli = await cliBackup(cliFile);
        cliMs.push(cli.ms);
        cliPeak = Math.max(cliPeak, cli.peakMb);
        const cliBytes = (await stat(cliFile)).size;
        if (bytes > 0 && Math.abs(cliBytes - bytes) > MIB) throw new Error(`the CLI wrote ${cliBytes} bytes, the plain fetch ${bytes}`);
        await rm(cliFile);
      };
      // Alternating which goes first, so neither always meets a colder cache.
      for (let round_ = 0; round_ < 2; round_++) {
        if (round_ % 2 === 0) await plain(round_), await viaCli(round_);
        else await viaCli(round_), await plain(round_);
      }
      const best = (values: number[]) => Math.min(...values);
      const mibPerS = (ms: number) => bytes / MIB / (ms / 1000);
      const figures = {
        file_bytes_mb: BACKUP_MB,
        archive_mib: round(bytes / MIB, 1),
        plain_fetch_ms: plainMs.map((ms) => round(ms, 0)),
        cli_ms: cliMs.map((ms) => round(ms, 0)),
        plain_fetch_mib_s: round(mibPerS(best(plainMs)), 0),
        cli_mib_s: round(mibPerS(best(cliMs)), 0),
        cli_peak_rss_mb: round(cliPeak, 0),
        curl_ms: curlMs.map((ms) => round(ms, 0)),
        curl_mib_s: curlMs.length > 0 ? round(mibPerS(best(curlMs)), 0) : null,
      };
      log(`loom backup ${fmt(figures.cli_mib_s)} MiB/s vs plain fetch ${fmt(figures.plain_fetch_mib_s)} MiB/s; CLI peak RSS ${fmt(cliPeak)} MB`);
      const checks: Check[] = [
        ratioCheck('loom backup ÷ plain fetch of POST /v1/backup (throughput)', best(plainMs) / best(cliMs), '>=', 0.8, `${fmt(figures.cli_mib_s)} vs ${fmt(figures.plain_fetch_mib_s)} MiB/s, ${fmt(figures.archive_mib)} MiB archive`),
        ratioCheck('loom backup peak RSS (MB ÷ 150)', cliPeak / 150, '<=', 1, `${fmt(cliPeak)} MB`),
        ...(curlMs.length > 0 ? [ratioCheck('loom backup ÷ curl -o (throughput)', best(curlMs) / best(cliMs), '>=', 0.8, `${fmt(figures.cli_mib_s)} vs ${fmt(figures.curl_mib_s ?? 0)} MiB/s`)] : []),
      ];
      return {
        figures,
        checks,
        notes: ['Best of two rounds each, alternating; the plain fetch is node:http piped to a file, as curl -o does; both write to os.tmpdir().'],
      };
    } finally {
      const exited = new Promise((r) => server.once('exit', r));
      server.kill('SIGTERM');
      await exited;
      await rm(dir, { recursive: true, force: true });
    }
  },
});
