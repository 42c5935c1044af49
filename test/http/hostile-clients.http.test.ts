/**
 * Hostile clients over raw sockets (security issue items 8b and 9a): what the
 * HTTP parser refuses is answered in the envelope with its status and the
 * server goes on serving; a body that stops half way is cut at the body
 * deadline while a thread watch outlives it; one address cannot hold more
 * than its connection cap.
 */
import { expect } from 'chai';
import type { Socket } from 'node:net';
import { get, newThread, startServer, SseReader, type StartedServer } from '../helpers/http-server.js';
import { openSocket, rawRequest, readUntilClosed, type RawAnswer } from '../helpers/raw-http.js';

function expectRawEnvelope(answer: RawAnswer, status: number, code: string): void {
  expect(answer.status, answer.body.slice(0, 200)).to.equal(status);
  expect(answer.headers['content-type']).to.match(/^application\/json/);
  expect(answer.headers['connection']).to.equal('close');
  expect(Number(answer.headers['content-length'])).to.equal(Buffer.byteLength(answer.body));
  expect(answer.json).to.include({ object: 'error', code });
  expect(answer.json.message).to.be.a('string').and.not.equal('');
}

describe('hostile clients (raw HTTP)', () => {
  let server: StartedServer;

  describe('refusals of the HTTP parser', () => {
    before(async () => {
      server = await startServer();
    });
    after(async () => {
      await server?.stop();
    });
    afterEach(async () => {
      // The server keeps serving after each refusal.
      expect((await get(server.url, '/health')).status).to.equal(200);
    });

    for (const path of ['/v1/data/list', '/v1/data/node', '/v1/data/stat', '/v1/data/provenance']) {
      it(`a 100 KB URL on GET ${path} is 414 URI_TOO_LONG in the envelope`, async () => {
        const answer = await rawRequest(server.url, `GET ${path}?namespace=acme&path=${'a'.repeat(100_000)} HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n`);
        expectRawEnvelope(answer, 414, 'URI_TOO_LONG');
      });
    }

    it('100 KB of headers is 431 HEADERS_TOO_LARGE in the envelope', async () => {
      const headers = Array.from({ length: 100 }, (_, i) => `x-filler-${i}: ${'h'.repeat(1000)}\r\n`).join('');
      const answer = await rawRequest(server.url, `GET /health HTTP/1.1\r\nhost: 127.0.0.1\r\n${headers}\r\n`);
      expectRawEnvelope(answer, 431, 'HEADERS_TOO_LARGE');
    });

    it('one 100 KB header value is 431 HEADERS_TOO_LARGE', async () => {
      const answer = await rawRequest(server.url, `GET /health HTTP/1.1\r\nhost: 127.0.0.1\r\nx-big: ${'h'.repeat(100_000)}\r\n\r\n`);
      expectRawEnvelope(answer, 431, 'HEADERS_TOO_LARGE');
    });

    for (const [what, line] of [
      ['a malformed request line', 'THIS IS NOT HTTP\r\n\r\n'],
      ['a Content-Length that is not a number', 'POST /v1/records HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-length: ten\r\n\r\n'],
      ['a header without a colon', 'GET /health HTTP/1.1\r\nhost 127.0.0.1\r\n\r\n'],
    ] as const) {
      it(`${what} is 400 MALFORMED_REQUEST in the envelope`, async () => {
        expectRawEnvelope(await rawRequest(server.url, line), 400, 'MALFORMED_REQUEST');
      });
    }
  });

  describe('deadlines', () => {
    afterEach(async () => {
      await server?.stop();
    });

    it('cuts a body that stops half way at the body deadline with 408, while a thread watch stays open past it', async () => {
      server = await startServer({ requestTimeoutMs: 400, minBodyBytesPerSecond: 1024 * 1024, ledger: { watchHeartbeatMs: 100 } });
      const thread = newThread('deadline');
      const watch = await SseReader.open(`${server.url}/v1/threads/${thread}/watch`);
      expect(watch.response.status).to.equal(200);
      const half = '{"thread":"' + 'x'.repeat(200);
      const answer = await rawRequest(server.url, `POST /v1/records HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: ${half.length * 2}\r\n\r\n${half}`);
      expectRawEnvelope(answer, 408, 'REQUEST_TIMEOUT');
      expect(answer.closedAfterMs).to.be.within(300, 1500);
      // Three deadlines later the watch is still delivering heartbeats.
      await new Promise((resolve) => setTimeout(resolve, 1200));
      const before = watch.comments.length;
      await watch.until((reader) => reader.comments.length > before, 1000, 'a heartbeat after the deadline');
      expect(watch.isEnded).to.equal(false);
      watch.close();
    });

    it('a trickle of bytes does not stretch the body deadline', async () => {
      server = await startServer({ requestTimeoutMs: 500, minBodyBytesPerSecond: 16 * 1024 });
      const socket = await openSocket(server.url);
      const answer = readUntilClosed(socket);
      socket.write(`POST /v1/records HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{`);
      const trickle = setInterval(() => socket.writable && socket.write(' '), 50);
      const cut = await answer;
      clearInterval(trickle);
      expectRawEnvelope(cut, 408, 'REQUEST_TIMEOUT');
      expect(cut.closedAfterMs).to.be.within(400, 1500);
    });

    it('a request whose headers never end is 408 after the headers deadline', async () => {
      server = await startServer({ headersTimeoutMs: 300 });
      const answer = await rawRequest(server.url, 'GET /health HTTP/1.1\r\nhost: 127.0.0.1\r\n');
      expectRawEnvelope(answer, 408, 'REQUEST_TIMEOUT');
      expect(answer.closedAfterMs).to.be.within(250, 1500);
    });
  });

  describe('connections per address', () => {
    afterEach(async () => {
      await server?.stop();
    });

    it('refuses the connection past the cap with 429 TOO_MANY_CONNECTIONS, and takes one again once another closes', async () => {
      server = await startServer({ maxConnectionsPerClient: 3 });
      const held: Socket[] = [];
      for (let i = 0; i < 3; i++) {
        const socket = await openSocket(server.url);
        socket.on('error', () => {});
        held.push(socket);
      }
      // Let the server see all three before the fourth arrives.
      await new Promise((resolve) => setTimeout(resolve, 50));
      const refused = await rawRequest(server.url, 'GET /health HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n');
      expectRawEnvelope(refused, 429, 'TOO_MANY_CONNECTIONS');
      expect(refused.headers['retry-after']).to.equal('1');
      held.pop()!.destroy();
      await new Promise((resolve) => setTimeout(resolve, 50));
      const admitted = await rawRequest(server.url, 'GET /health HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\n\r\n');
      expect(admitted.status, JSON.stringify(admitted)).to.equal(200);
      for (const socket of held) socket.destroy();
    });
  });
});
