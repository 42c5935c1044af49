/**
 * The deployment examples (examples/deploy: a Dockerfile and a systemd
 * unit) parse, and what they reference exists: the entry point they run,
 * the environment variables `loom serve` reads, the port it listens on,
 * and the container's health check, which is run against a real server.
 */
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from '../core/records/fixtures/vectors-path.js';
import { startServer } from './helpers/start-server.js';

const run = promisify(execFile);
const DOCKER_INSTRUCTIONS = new Set(['FROM', 'RUN', 'CMD', 'LABEL', 'EXPOSE', 'ENV', 'ADD', 'COPY', 'ENTRYPOINT', 'VOLUME', 'USER', 'WORKDIR', 'ARG', 'ONBUILD', 'STOPSIGNAL', 'HEALTHCHECK', 'SHELL']);
const serveUsage = readFileSync(join(REPO_ROOT, 'server', 'commands', 'serve.ts'), 'utf8');

/** Dockerfile instructions, with continuation lines joined and comments dropped. */
function dockerInstructions(text: string): Array<{ op: string; args: string }> {
  const joined = text.replace(/\\\n/g, ' ');
  return joined
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const [op, ...rest] = line.split(/\s+/);
      return { op: op!.toUpperCase(), args: rest.join(' ') };
    });
}

describe('deployment examples', () => {
  it('the Dockerfile uses only known instructions, runs the built CLI, exposes 9100 and passes its own health check', async function () {
    this.timeout(30_000);
    const steps = dockerInstructions(readFileSync(join(REPO_ROOT, 'examples', 'deploy', 'Dockerfile'), 'utf8'));
    expect(steps[0]!.op).to.equal('FROM');
    for (const step of steps) expect(DOCKER_INSTRUCTIONS.has(step.op), step.op).to.equal(true);
    const cmd = JSON.parse(steps.find((s) => s.op === 'CMD')!.args) as string[];
    expect(cmd.slice(0, 1)).to.deep.equal(['node']);
    expect(existsSync(join(REPO_ROOT, cmd[1]!.replace(/^dist\//, 'dist/')))).to.equal(true);
    expect(cmd[2]).to.equal('serve');
    expect(steps.find((s) => s.op === 'EXPOSE')!.args).to.equal('9100');
    for (const variable of steps.filter((s) => s.op === 'ENV').flatMap((s) => s.args.split(/\s+/).map((pair) => pair.split('=')[0]!))) {
      expect(serveUsage, `loom serve reads ${variable}`).to.contain(variable);
    }
    const health = steps.find((s) => s.op === 'HEALTHCHECK')!.args;
    const script = /node -e "(.*)"$/.exec(health)![1]!;
    const server = await startServer();
    try {
      const port = new URL(server.url).port;
      await run(process.execPath, ['-e', script.replace('127.0.0.1:9100', `127.0.0.1:${port}`)]);
    } finally {
      await server.stop();
    }
    const down = await run(process.execPath, ['-e', script.replace('127.0.0.1:9100', '127.0.0.1:9')]).then(() => 0, (error: { code: number }) => error.code);
    expect(down).to.equal(1);
  });

  it('the systemd unit has its sections and runs the built CLI with variables loom serve reads', () => {
    const text = readFileSync(join(REPO_ROOT, 'examples', 'deploy', 'loom.service'), 'utf8');
    const sections = new Map<string, Array<[string, string]>>();
    let current: string | null = null;
    for (const raw of text.split('\n')) {
      const line = raw.trim();
      if (line === '' || line.startsWith('#')) continue;
      const header = /^\[(\w+)\]$/.exec(line);
      if (header) {
        current = header[1]!;
        sections.set(current, []);
        continue;
      }
      const pair = /^([A-Za-z]+)=(.*)$/.exec(line);
      expect(pair, line).to.not.equal(null);
      expect(current, line).to.not.equal(null);
      sections.get(current!)!.push([pair![1]!, pair![2]!]);
    }
    expect([...sections.keys()]).to.deep.equal(['Unit', 'Service', 'Install']);
    const service = sections.get('Service')!;
    const exec = service.find(([key]) => key === 'ExecStart')![1].split(' ');
    expect(exec[1]!.endsWith('/dist/bin/loom.js')).to.equal(true);
    expect(existsSync(join(REPO_ROOT, 'dist', 'bin', 'loom.js'))).to.equal(true);
    expect(exec[2]).to.equal('serve');
    for (const [, value] of service.filter(([key]) => key === 'Environment')) expect(serveUsage).to.contain(value.split('=')[0]!);
    expect(service.find(([key]) => key === 'KillSignal')![1]).to.equal('SIGTERM');
    expect(sections.get('Install')!.find(([key]) => key === 'WantedBy')![1]).to.equal('multi-user.target');
  });
});
