/**
 * A proxy in front of a live server that rewrites the JSON answer of one
 * path, as a lying server would: the CLI's --verify checks are run through
 * it (test/cli/insight-commands.test.ts, test/cli/runs-commands.test.ts).
 */
import { createServer, type Server } from 'node:http';

/**
 * A proxy in front of `target` that rewrites the JSON answer of one path with
 * `alter` and passes everything else through unchanged.
 */
export async function tamperingProxy(target: string, path: string, alter: (answer: any) => void): Promise<{ url: string; close: () => Promise<void> }> {
  const proxy: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      void (async () => {
        const headers = Object.fromEntries(Object.entries(req.headers).filter(([name, value]) => typeof value === 'string' && name !== 'host' && name !== 'content-length')) as Record<string, string>;
        const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
        const answer = await fetch(target + req.url, { method: req.method, headers, ...(body ? { body } : {}) });
        let text = await answer.text();
        if (new URL(req.url!, target).pathname === path && answer.status === 200) {
          const parsed = JSON.parse(text);
          alter(parsed);
          text = JSON.stringify(parsed);
        }
        res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
        res.end(text);
      })().catch((error: Error) => {
        res.writeHead(502);
        res.end(error.message);
      });
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const address = proxy.address() as { port: number };
  return { url: `http://127.0.0.1:${address.port}`, close: () =>
      new Promise<void>((resolve) => {
        proxy.close(() => resolve());
        // close() alone waits for open keep-alive connections (on Node 24 the
        // pair's polling connection stays open and close never returned):
        // closing the proxy is meant to cut the peer off at once.
        proxy.closeAllConnections();
      }),
  };
}
