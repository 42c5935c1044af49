/**
 * Debian's nginx as a real load balancer in front of several Loom servers:
 * round robin with no stickiness, HTTP/1.1 keep-alive upstream connections,
 * no buffering (SSE watches and streamed downloads pass through as they
 * come), and a refused connection passed to the next server (nginx does not
 * resend a POST it already sent: a client retries that itself). Every
 * request is logged with the upstream that answered it, so a test can show
 * that the steps of one flow landed on different servers.
 *
 * Runs as one foreground process (`master_process off`, `daemon off`) with
 * every path in a temporary directory, so it needs no root and leaves
 * nothing behind.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const NGINX = '/usr/sbin/nginx';

/** Why nginx cannot run here, or null. */
export function nginxUnavailable(): string | null {
  return existsSync(NGINX) ? null : `${NGINX} is missing; install it with: apt-get install -y nginx-light`;
}

export interface LoggedRequest {
  readonly method: string;
  readonly path: string;
  readonly status: number;
  /** `127.0.0.1:<port>` of the server that answered (the last one tried), or null when none did. */
  readonly upstream: string | null;
}

export interface Nginx {
  readonly url: string;
  /** Every request so far, in the order nginx finished them. */
  requests(): Promise<LoggedRequest[]>;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** nginx in front of `upstreams` (base URLs like http://127.0.0.1:4100), listening on a free loopback port. */
export async function startNginx(upstreams: readonly string[]): Promise<Nginx> {
  const dir = await mkdtemp(join(tmpdir(), 'loom-nginx-'));
  const port = await freePort();
  const servers = upstreams.map((url) => `    server ${new URL(url).host} max_fails=1 fail_timeout=5s;`).join('\n');
  const config = `
master_process off;
daemon off;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 1024; }
http {
  log_format upstreams '$request_method $request_uri $status $upstream_addr';
  access_log ${dir}/access.log upstreams;
  client_body_temp_path ${dir}/client_body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  client_max_body_size 0;
  upstream loom {
${servers}
    keepalive 16;
  }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://loom;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Host $http_host;
      proxy_buffering off;
      proxy_request_buffering off;
      proxy_read_timeout 1h;
      proxy_next_upstream error timeout;
      proxy_next_upstream_tries 3;
    }
  }
}
`;
  await writeFile(join(dir, 'nginx.conf'), config);
  const child: ChildProcess = spawn(NGINX, ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', join(dir, 'error.log')], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const url = `http://127.0.0.1:${port}`;
  // Listening once a connection is accepted; nginx exits at once on a bad configuration.
  for (let attempt = 0; ; attempt++) {
    if (child.exitCode !== null) throw new Error(`nginx exited ${child.exitCode}: ${stderr}${await readFile(join(dir, 'error.log'), 'utf8').catch(() => '')}`);
    const up = await fetch(`${url}/nginx-probe`).then(
      () => true,
      () => false,
    );
    if (up) break;
    if (attempt > 100) throw new Error(`nginx did not listen on ${url}: ${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    url,
    async requests() {
      const text = await readFile(join(dir, 'access.log'), 'utf8').catch(() => '');
      return text
        .split('\n')
        .filter((line) => line.length > 0)
        .map((line) => {
          const [method, path, status, ...tried] = line.split(' ');
          // With retries $upstream_addr lists every server tried ("a, b"); the last one answered.
          const last = (tried.join(' ') || '-').split(', ').pop()!;
          return { method: method!, path: path!, status: Number(status), upstream: last === '-' ? null : last };
        });
    },
    async stop() {
      if (child.exitCode === null) {
        const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
        child.kill('SIGQUIT');
        await exited;
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
