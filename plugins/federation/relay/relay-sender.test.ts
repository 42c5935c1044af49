/**
 * The relay sender keeps the peer's last request across a restart: a pair
 * that had deposited nothing yet, whose peer then went silent while this
 * instance restarted, deposits from the cursor, target namespace and thread
 * the peer last asked for, not from the start of the log for `default`. A
 * state file of an earlier Loom (push cursors alone) is still read.
 */
import { expect } from 'chai';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChangesFeed } from '../changes-feed.js';
import type { FederationPair } from '../handshake/federation-pair.js';
import type { RelaySettings } from './relay-config.js';
import { RelaySender, type PeerRead } from './relay-sender.js';

const PEER = 'did:key:z6MkpeerOfTheRelaySenderTest';
const pair = { pair_id: 'fed_1', peer_did: PEER, state: 'active', issued: { service_account_id: 'sa_peer' }, previous_issued: null, scopes: ['federation:sync'], poll_interval_ms: 1000 } as unknown as FederationPair;
const settings = { relayFor: () => ({ url: 'http://127.0.0.1:9', for_pair: 'all', silence_ms: 1000, poll_interval_ms: 1000 }) } as unknown as RelaySettings;
const silentLog = { log: () => undefined } as never;

describe('RelaySender across a restart', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'loom-relay-sender-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  /** A sender whose feed writes down what it was asked for (and has nothing to send). */
  function sender(lastRead: PeerRead | undefined, now: () => number) {
    const asked: Array<{ since: string; targetNamespace: string; thread: string | null }> = [];
    const feed = {
      page: async (request: { since: string; targetNamespace: string; thread?: string }) => {
        asked.push({ since: request.since, targetNamespace: request.targetNamespace, thread: request.thread ?? null });
        return { records: [], has_more: false, next_cursor: request.since };
      },
    } as unknown as ChangesFeed;
    const instance = new RelaySender({
      pairs: () => [pair],
      feed,
      key: { did: 'did:key:z6Mkself', sign: () => new Uint8Array(64) },
      settings,
      lastRead: () => lastRead,
      feedOpen: () => false,
      defaultPollMs: 1000,
      stateFile: join(dir, 'relay-push.json'),
      log: silentLog,
      now,
    });
    return { instance, asked };
  }

  it("deposits from the peer's last request after a restart, not from the log's start", async () => {
    let clock = 1_000_000;
    const read: PeerRead = { at: clock, since: 'cursor-of-the-peer', target_namespace: 'acme', thread: 'th_' + 'c'.repeat(64) };
    // Before the restart the peer pulls: nothing is deposited, but its request is kept.
    const before = sender(read, () => clock);
    await before.instance.tick();
    expect(before.asked, 'no deposit while the peer pulls').to.deep.equal([]);
    const saved = JSON.parse(await readFile(join(dir, 'relay-push.json'), 'utf8'));
    expect(saved.fed_1.peer_read).to.deep.equal({ since: 'cursor-of-the-peer', target_namespace: 'acme', thread: read.thread });

    // Restarted, the peer silent since: PeerContact's memory is empty, the saved request is not.
    const after = sender(undefined, () => clock);
    clock += 1500;
    await after.instance.tick();
    expect(after.asked[0]).to.deep.equal({ since: 'cursor-of-the-peer', targetNamespace: 'acme', thread: read.thread });
  });

  it('reads the push cursors of an earlier state file', async () => {
    await writeFile(join(dir, 'relay-push.json'), JSON.stringify({ fed_1: 'push-cursor-from-before' }));
    const clock = 1_000_000;
    const restarted = sender(undefined, () => clock);
    await restarted.instance.tick();
    expect(restarted.instance.view().find((state) => state.pair_id === 'fed_1')?.push_cursor).to.equal('push-cursor-from-before');
  });
});
