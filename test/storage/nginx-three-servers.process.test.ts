/**
 * Any request to any server (issue 36): Debian's nginx, round robin with no
 * stickiness, in front of three `loom serve` processes on one throwaway
 * PostgreSQL cluster. nginx's access log names the server that answered each
 * request, so every multi-step flow below is shown to have crossed servers:
 * - an invite made through one server is redeemed through another, and the
 *   bearer it gives works on the next;
 * - a passkey challenge fetched through one server is answered through
 *   another (Chromium with a virtual authenticator), for registration and
 *   for the re-credential door, and spent once;
 * - an SSE watch held open through nginx sees, in order, every record
 *   ingested through the other servers;
 * - a chunked upload whose chunks land on different servers completes, and
 *   the file is served whole, by range and by a signed URL by servers that
 *   did not receive its chunks;
 * - a backup taken through nginx (`loom backup`, pg_dump from one snapshot
 *   on whichever server answers) restores with `loom restore` into a fresh
 *   database, where a new server has every record and the file's bytes;
 * - one server is killed while writers keep writing through nginx and retry
 *   what failed (a refused connection nginx passes on itself; a request cut
 *   mid-flight comes back 502 and the client resends it, which is
 *   idempotent): every acknowledged write is there afterwards, once.
 */
import { expect } from 'chai';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ThrowawayCluster } from '../../storage/postgres/throwaway-cluster.js';
import { runLoom } from '../helpers/cli-run.js';
import { chromium, type Browser } from 'playwright-core';
import { bootstrapAdmin, bearer, createAccount, type Credential } from '../helpers/auth.js';
import { completeWrite, initWrite, putChunkOf, readBlob, sha256, testBytes } from '../helpers/data-plane.js';
import { get, mapLimit, newThread, request, SseReader, type HttpAnswer } from '../helpers/http-server.js';
import { startLoomProcess, type LoomProcess } from '../helpers/loom-process.js';
import { nginxUnavailable, startNginx, type LoggedRequest, type Nginx } from '../helpers/nginx.js';
import { clusterOrSkip, freshDatabase } from '../helpers/postgres-test-support.js';
import { until } from '../helpers/until.js';
import { inPage, type Assertion, type Ceremony, type Registration } from '../helpers/webauthn-page.js';

const CHROMIUM = '/usr/bin/chromium';
const ACTOR = 'did:sync:agent:behind-nginx';

/** The upstream that answered the last logged request matching `method path` (exact path, or prefix with `*`). */
function answeredBy(log: readonly LoggedRequest[], method: string, path: string): string | null {
  const matches = log.filter((r) => r.method === method && (path.endsWith('*') ? r.path.startsWith(path.slice(0, -1)) : r.path === path));
  return matches.at(-1)?.upstream ?? null;
}

describe('three loom serve processes behind nginx on one PostgreSQL (round robin, no stickiness)', function () {
  this.timeout(240_000);
  let processes: LoomProcess[] = [];
  let nginx: Nginx;
  let admin: Credential;
  let writer: Credential;
  let cluster: ThrowawayCluster;

  before(async function () {
    cluster = await clusterOrSkip(this);
    const problem = nginxUnavailable();
    if (problem) {
      // CI installs it (.ci/run): missing there is a broken machine, not a reason to skip.
      if (process.env['CI']) throw new Error(`${problem} (CI must run the load-balancer test, not skip it)`);
      console.warn(`      skipping the nginx test: ${problem}`);
      this.skip();
    }
    const database = await freshDatabase(cluster, 'nginx');
    // The first creates the schema; the other two start together against it.
    processes.push(await startLoomProcess({ storage: 'postgres', args: ['--database-url', database] }));
    processes.push(...(await Promise.all([1, 2].map(() => startLoomProcess({ storage: 'postgres', args: ['--database-url', database] })))));
    nginx = await startNginx(processes.map((p) => p.url));
    admin = await bootstrapAdmin(nginx.url);
    writer = await createAccount(nginx.url, admin, 'writer', ['records:write', 'records:read'], ['did:sync:agent:*']);
  });

  after(async () => {
    await nginx?.stop();
    for (const p of processes) {
      await p.stop().catch(() => {});
      await p.remove().catch(() => {});
    }
    processes = [];
  });

  const upstreamOf = (p: LoomProcess) => new URL(p.url).host;
  const write = (thread: string, clock: number, body: Record<string, unknown> = {}) =>
    request(nginx.url, 'POST', '/v1/records', { headers: { ...bearer(writer), 'x-service-actor': ACTOR }, json: { thread, actor: ACTOR, act: 'DO', body: { clock, ...body }, clock, data_type: 'SCALAR', parents: [] } });

  it('spreads requests over all three servers', async () => {
    for (let i = 0; i < 9; i++) expect((await get(nginx.url, '/health/ready')).status).to.equal(200);
    const answered = new Set((await nginx.requests()).filter((r) => r.path === '/health/ready').map((r) => r.upstream));
    expect([...answered].sort()).to.deep.equal(processes.map(upstreamOf).sort());
  });

  it('an invite made through one server is redeemed through another; its bearer works on the next', async () => {
    const invite = await request(nginx.url, 'POST', '/v1/invites', { json: { membership: { preset: 'contributor', label: 'bob' } }, headers: bearer(admin) });
    expect(invite.status, invite.text).to.equal(201);
    const redeemed = await request(nginx.url, 'POST', '/v1/invites/redeem', { json: { invite: invite.json.invite_token } });
    expect(redeemed.status, redeemed.text).to.equal(201);
    const self = await get(nginx.url, '/v1/self', bearer(redeemed.json.token));
    expect(self.status, self.text).to.equal(200);
    const log = await nginx.requests();
    const servers = [answeredBy(log, 'POST', '/v1/invites'), answeredBy(log, 'POST', '/v1/invites/redeem'), answeredBy(log, 'GET', '/v1/self')];
    expect(new Set(servers).size, `answered by ${servers.join(', ')}`).to.equal(3);
  });

  it('a passkey challenge fetched through one server is answered through another, and spent once', async function () {
    if (!existsSync(CHROMIUM)) {
      if (process.env['CI']) throw new Error(`${CHROMIUM} is missing (CI installs it)`);
      this.skip();
    }
    // The browser's origin is nginx's: that is what the servers must accept.
    const origin = nginx.url.replace('127.0.0.1', 'localhost');
    expect((await request(nginx.url, 'POST', '/v1/config/passkey_rp', { json: { rp_id: 'localhost', origins: [origin] }, headers: bearer(admin) })).status).to.equal(201);
    const invite = await request(nginx.url, 'POST', '/v1/invites', { json: { membership: { preset: 'contributor', label: 'carol' } }, headers: bearer(admin) });
    const redeemed = await request(nginx.url, 'POST', '/v1/invites/redeem', { json: { invite: invite.json.invite_token } });
    expect(redeemed.status, redeemed.text).to.equal(201);
    const token: string = redeemed.json.token;
    let browser: Browser | undefined;
    try {
      browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, chromiumSandbox: false });
      const context = await browser.newContext();
      const page = await context.newPage();
      const cdp = await context.newCDPSession(page);
      await cdp.send('WebAuthn.enable', { enableUI: false });
      await cdp.send('WebAuthn.addVirtualAuthenticator', {
        options: { protocol: 'ctap2', ctap2Version: 'ctap2_1', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
      });
      expect((await page.goto(`${origin}/health`))?.status()).to.equal(200);

      const challenge = await request(nginx.url, 'POST', '/v1/self/bindings/challenge', { json: { kind: 'passkey' }, headers: bearer(token) });
      expect(challenge.status, challenge.text).to.equal(200);
      const material = (await page.evaluate<Registration | Assertion, Ceremony>(inPage, { op: 'create', options: challenge.json.options })) as Registration;
      const bound = await request(nginx.url, 'POST', '/v1/self/bindings', { json: { kind: 'passkey', material }, headers: bearer(token) });
      expect(bound.status, bound.text).to.equal(201);

      const ask = await request(nginx.url, 'POST', '/v1/recredential/challenge', { json: { principal: 'carol', kind: 'passkey' } });
      expect(ask.status, ask.text).to.equal(200);
      const assertion = (await page.evaluate<Registration | Assertion, Ceremony>(inPage, { op: 'get', challenge: ask.json.challenge, rpId: ask.json.rp_id })) as Assertion;
      const answered = await request(nginx.url, 'POST', '/v1/recredential', { json: { principal: 'carol', proof: { kind: 'passkey', evidence: assertion } } });
      expect(answered.status, answered.text).to.equal(201);
      // The same proof again, on whichever server nginx picks next: the challenge is spent.
      const replayed = await request(nginx.url, 'POST', '/v1/recredential', { json: { principal: 'carol', proof: { kind: 'passkey', evidence: assertion } } });
      expect([replayed.status, replayed.json.code]).to.deep.equal([401, 'RECREDENTIAL_REFUSED']);

      // nginx writes a request's log line as it finishes it, which can come after the client has the answer.
      const recredentialsLogged = async () => (await nginx.requests()).filter((r) => r.method === 'POST' && r.path === '/v1/recredential').length >= 2;
      await until('both recredential answers in the access log', 10_000, recredentialsLogged, 50);
      const log = await nginx.requests();
      expect(answeredBy(log, 'POST', '/v1/self/bindings/challenge')).to.not.equal(answeredBy(log, 'POST', '/v1/self/bindings'));
      const recredentials = log.filter((r) => r.method === 'POST' && r.path === '/v1/recredential').slice(-2);
      const askedOn = answeredBy(log, 'POST', '/v1/recredential/challenge');
      expect(recredentials[0]!.upstream).to.not.equal(askedOn);
      expect(recredentials[1]!.upstream).to.not.equal(recredentials[0]!.upstream);
    } finally {
      await browser?.close();
    }
  });

  it('an SSE watch held through nginx sees every record ingested through the other servers, in order', async () => {
    const thread = newThread('nginx-watch');
    const watch = await SseReader.open(`${nginx.url}/v1/threads/${thread}/watch`, bearer(writer));
    try {
      const written: string[] = [];
      for (let clock = 0; clock < 30; clock++) {
        const answer = await write(thread, clock);
        expect(answer.status, answer.text).to.equal(201);
        written.push(answer.json.id);
      }
      await watch.until((r) => r.events.filter((e) => e.event === 'record').length >= 30, 30_000, 'all 30 records on the watch');
      expect(watch.events.filter((e) => e.event === 'record').map((e) => JSON.parse(e.data).id)).to.deep.equal(written);
      // nginx logs the watch when it ends: the records came through all three servers, the watch through one of them.
      watch.close();
      await until('the watch in the access log', 10_000, async () => answeredBy(await nginx.requests(), 'GET', `/v1/threads/${thread}/watch*`) !== null, 100);
      const log = await nginx.requests();
      const watchedOn = answeredBy(log, 'GET', `/v1/threads/${thread}/watch*`);
      const writtenOn = new Set(log.filter((r) => r.method === 'POST' && r.path === '/v1/records').slice(-30).map((r) => r.upstream));
      expect([...writtenOn].sort()).to.deep.equal(processes.map(upstreamOf).sort());
      expect(writtenOn).to.include(watchedOn);
    } finally {
      watch.close();
    }
  });

  it('a chunked upload whose chunks land on different servers completes; others serve it whole, by range and by a signed URL', async () => {
    const CHUNK = 8 * 1024 * 1024;
    const content = testBytes(3 * CHUNK + 12_345, 41);
    const admin_ = bearer(admin);
    const init = await initWrite(nginx.url, { path: '/nginx/big.bin', size_bytes: content.length, content_type: 'application/octet-stream' }, admin_);
    expect(init.status, init.text).to.equal(201);
    const uploadId: string = init.json.upload_id;
    for (let i = 0; i * CHUNK < content.length; i++) {
      const put = await putChunkOf(nginx.url, uploadId, content, CHUNK, i, admin_);
      expect(put.status, put.text).to.be.below(300);
    }
    const done = await completeWrite(nginx.url, uploadId, admin_, sha256(content));
    expect(done.status, done.text).to.equal(200);
    const whole = await readBlob(nginx.url, `/v1/blobs/${sha256(content)}`, admin_);
    expect(whole.status).to.equal(200);
    expect(whole.bytes.equals(content)).to.equal(true);
    const [start, end] = [2 * CHUNK - 10, 2 * CHUNK + 9];
    const ranged = await readBlob(nginx.url, `/v1/blobs/${sha256(content)}`, { ...admin_, range: `bytes=${start}-${end}` });
    expect(ranged.status).to.equal(206);
    expect(ranged.bytes.equals(content.subarray(start, end + 1))).to.equal(true);
    const signed = await request(nginx.url, 'POST', '/v1/data/read-url', { json: { path: '/nginx/big.bin' }, headers: admin_ });
    expect(signed.status, signed.text).to.equal(200);
    const location = new URL(signed.json.blob_url, nginx.url);
    const byUrl = await readBlob(nginx.url, `${location.pathname}${location.search}`);
    expect(byUrl.status).to.equal(200);
    expect(byUrl.bytes.equals(content)).to.equal(true);

    const log = await nginx.requests();
    const chunksOn = new Set(log.filter((r) => r.method === 'PUT' && r.path.startsWith(`/v1/blobs/upload/${uploadId}`)).map((r) => r.upstream));
    expect(chunksOn.size, 'the chunks landed on every server').to.equal(3);
    const signedOn = answeredBy(log, 'POST', '/v1/data/read-url');
    const servedOn = answeredBy(log, 'GET', `${location.pathname}*`);
    expect(servedOn, 'the signed URL is served by a server other than the one that made it').to.not.equal(signedOn);
  });

  it('a backup taken through nginx restores into a fresh database with every record and the file bytes', async () => {
    const thread = newThread('nginx-backup');
    const ids: string[] = [];
    for (let clock = 0; clock < 30; clock++) {
      const answer = await write(thread, clock, { text: `before the backup ${clock}` });
      expect(answer.status, answer.text).to.equal(201);
      ids.push(answer.json.id);
    }
    const root = await mkdtemp(join(tmpdir(), 'loom-nginx-backup-'));
    let restoredServer: LoomProcess | null = null;
    try {
      const config = join(root, 'config.json');
      const archive = join(root, 'cluster.tar.gz');
      const backup = await runLoom(['backup', '-o', archive, '--json'], { url: nginx.url, config, token: admin.token });
      expect(backup.code, backup.stderr).to.equal(0);
      const taken = JSON.parse(backup.stdout) as { watermark: number };
      expect(answeredBy(await nginx.requests(), 'POST', '/v1/backup'), 'a server behind nginx took it').to.not.equal(null);

      const target = await freshDatabase(cluster, 'restored');
      const dataDir = join(root, 'restored');
      const restored = await runLoom(['restore', archive, '--data-dir', dataDir, '--database-url', target, '--json'], { url: nginx.url, config });
      expect(restored.code, restored.stderr).to.equal(0);
      const result = JSON.parse(restored.stdout) as { backend: string; watermark: number; database_schema: string };
      expect(result).to.include({ backend: 'postgres', watermark: taken.watermark, database_schema: 'loom' });
      // A second restore into the same database refuses rather than mixing two logs.
      const again = await runLoom(['restore', archive, '--data-dir', join(root, 'again'), '--database-url', target], { url: nginx.url, config });
      expect(again.code).to.equal(1);
      expect(again.stderr).to.contain('already holds a log');

      restoredServer = await startLoomProcess({ storage: 'postgres', dataDir, args: ['--database-url', target] });
      // The admin's bearer works there: the accounts came back with the log.
      const listed = await get(restoredServer.url, `/v1/threads/${thread}/records?limit=100`, bearer(admin));
      expect(listed.status, listed.text).to.equal(200);
      expect(listed.json.data.map((r: { id: string }) => r.id).sort()).to.deep.equal([...ids].sort());
      // The chunked upload of the test above: its bytes live in the database, and came back with it.
      const node = await get(restoredServer.url, '/v1/data/node?path=/nginx/big.bin', bearer(admin));
      expect(node.status, node.text).to.equal(200);
      const blob = await readBlob(restoredServer.url, `/v1/blobs/${node.json.content_hash}`, bearer(admin));
      expect(blob.status).to.equal(200);
      expect(blob.bytes.length).to.equal(node.json.size_bytes);
      expect(sha256(blob.bytes)).to.equal(node.json.content_hash);
    } finally {
      await restoredServer?.stop();
      await rm(root, { recursive: true, force: true });
    }
  });

  it('one server killed mid-write: writers retrying through nginx lose no acknowledged write', async () => {
    const thread = newThread('nginx-kill');
    const acknowledged = new Map<number, string>();
    let retried = 0;
    const writers = 6;
    const perWriter = 40;
    const victim = processes[1]!;
    let killed = false;
    await mapLimit([...Array(writers).keys()], writers, async (w) => {
      for (let n = 0; n < perWriter; n++) {
        const clock = w * perWriter + n;
        if (w === 0 && n === perWriter / 4 && !killed) {
          killed = true;
          await victim.kill();
        }
        for (let attempt = 0; ; attempt++) {
          let answer: HttpAnswer | null = null;
          try {
            answer = await write(thread, clock, { w });
          } catch {
            // The connection itself failed: resend.
          }
          if (answer && (answer.status === 201 || answer.status === 200)) {
            acknowledged.set(clock, answer.json.id);
            break;
          }
          if (answer && ![502, 503, 504].includes(answer.status)) expect.fail(`write ${clock}: ${answer.status} ${answer.text}`);
          retried++;
          if (attempt > 20) expect.fail(`write ${clock} still failing after ${attempt} attempts`);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
      }
    });
    expect(killed).to.equal(true);
    expect(acknowledged.size).to.equal(writers * perWriter);
    // Every acknowledged record is on the log once, whichever server answers.
    const listed: string[] = [];
    let after: string | null = null;
    do {
      const page = await get(nginx.url, `/v1/threads/${thread}/records?limit=1000${after ? `&after=${after}` : ''}`, bearer(writer));
      expect(page.status, page.text).to.equal(200);
      listed.push(...page.json.data.map((r: { id: string }) => r.id));
      after = page.json.has_more ? page.json.next_cursor : null;
    } while (after !== null);
    expect(listed.length).to.equal(writers * perWriter);
    expect([...listed].sort()).to.deep.equal([...acknowledged.values()].sort());
    // The two left keep answering: nginx stopped sending to the dead one.
    await until('both survivors answer', 10_000, async () => (await get(nginx.url, '/health/ready')).status === 200, 100);
    const after5 = (await nginx.requests()).slice(-5).map((r) => r.upstream);
    expect(after5).to.not.include(upstreamOf(victim));
    console.log(`      ${writers * perWriter} writes acknowledged, ${retried} resent after the kill; none lost, none twice`);
  });
});
