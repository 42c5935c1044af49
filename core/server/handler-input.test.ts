import { expect } from 'chai';
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { once } from 'node:events';
import { LOCAL } from '../access/caller.js';
import { HandlerInput } from './handler-input.js';

const inputFor = (res: ServerResponse) => new HandlerInput({}, {}, undefined, {}, undefined, null, LOCAL, '127.0.0.1', res);

/** A server whose handler is `handle`; the client sends one GET and, with `hangUp`, goes away before the answer. */
async function exchange(handle: (req: IncomingMessage, res: ServerResponse) => void | Promise<void>, hangUp: boolean): Promise<void> {
  const handled = new Promise<void>((resolve, reject) => {
    server.removeAllListeners('request');
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      Promise.resolve(handle(req, res)).then(resolve, reject);
    });
  });
  const { port } = server.address() as AddressInfo;
  const client = request({ host: '127.0.0.1', port, path: '/' });
  client.on('error', () => {});
  client.end();
  if (hangUp) {
    // Let the request reach the server, then cut the socket.
    setTimeout(() => client.destroy(), 50);
  } else {
    client.on('response', (res) => res.resume());
  }
  await handled;
}

let server: Server;

describe('HandlerInput', () => {
  before(async () => {
    server = createServer();
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
  });
  after(() => server.close());

  it('signal: aborted when the client goes away before the answer is finished', async () => {
    await exchange(async (_req, res) => {
      const signal = inputFor(res).signal;
      expect(signal.aborted).to.equal(false);
      res.write('partial');
      await once(signal, 'abort');
      expect(signal.aborted).to.equal(true);
    }, true);
  });

  it('signal: never aborted for an answer that finished', async () => {
    await exchange(async (_req, res) => {
      const signal = inputFor(res).signal;
      res.end('done');
      await once(res, 'close');
      expect(signal.aborted).to.equal(false);
    }, false);
  });

  it('signal: made after the response closed unfinished, it is aborted at once', async () => {
    await exchange(async (_req, res) => {
      await once(res, 'close');
      expect(inputFor(res).signal.aborted).to.equal(true);
    }, true);
  });

  it('signal: one signal per input, made on first use', async () => {
    await exchange((_req, res) => {
      const input = inputFor(res);
      expect(res.listenerCount('close')).to.equal(0);
      expect(input.signal).to.equal(input.signal);
      expect(res.listenerCount('close')).to.equal(1);
      res.end();
    }, false);
  });
});
