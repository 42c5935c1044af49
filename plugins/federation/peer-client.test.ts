/**
 * The peer client starts no request for a halted pair. `abort()` only reaches
 * a request already in flight; a pause or a stop that lands between two
 * requests (the manifest check makes two, with a key update between them)
 * used to let the next one go out, and a continuous feed started that way
 * ran for up to a minute, holding up the stop (and a revocation waiting on
 * it).
 */
import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Value from 'typebox/value';
import { FederationOptions } from './config.js';
import type { PairEntry } from './pair-records.js';
import { PeerClient } from './peer-client.js';

describe('PeerClient: a halted pair sends nothing', () => {
  let server: Server;
  let base: string;
  let requests = 0;

  before(async () => {
    server = createServer((_request, response) => {
      requests++;
      response.writeHead(503, { 'content-type': 'application/json' }).end('{"object":"error","code":"UNAVAILABLE","message":"test"}');
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((done) => server.close(() => done())));
  beforeEach(() => (requests = 0));

  function client(halted: () => boolean): PeerClient {
    const pair = { pair_id: 'sp_test', peer_url: base, peer_did: 'did:key:z6Mktest', target_namespace: 'default', thread_id: null, mode: 'continuous', poll_interval_ms: 1000, paused: false } as unknown as PairEntry;
    return new PeerClient({
      pair: () => pair,
      cursor: () => null,
      token: () => 'peer-token',
      options: Value.Default(FederationOptions, {}) as FederationOptions,
      now: () => Date.now(),
      rejected: () => undefined,
      halted,
    });
  }

  it('a request goes out while the pair runs (the control)', async () => {
    const error = await client(() => false).page('normal').then(
      () => null,
      (failure: unknown) => failure,
    );
    expect(error, 'the fake answers 503').to.not.equal(null);
    expect(requests).to.equal(1);
  });

  for (const [name, call] of [
    ['a page', (peer: PeerClient) => peer.page('normal')],
    ['the continuous feed', (peer: PeerClient) => peer.stream(async () => undefined)],
    ['a manifest check', (peer: PeerClient) => peer.verifyManifest(Date.now())],
  ] as const) {
    it(`${name} is not requested once the pair is stopped or paused`, async () => {
      const error = await call(client(() => true)).then(
        () => null,
        (failure: unknown) => failure,
      );
      expect(error, 'the call fails (aborted) rather than hanging or succeeding').to.not.equal(null);
      expect(requests, 'requests that reached the peer').to.equal(0);
    });
  }
});
