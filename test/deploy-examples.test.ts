/**
 * The deployment examples (examples/deploy: a Dockerfile and a systemd
 * unit) parse, and what they reference exists: the entry point they run,
 * the environment variables `loom serve` reads, the port it listens on,
 * and the container's health check, which is run against a real server.
 * The Dockerfile's stages run in scratch directories (test/helpers/dockerfile-stages.ts:
 * no container builder or registry here), with a stand-in npm that checks
 * each step finds what it needs; LOOM_DOCKERFILE_RUN=1 runs them with the
 * real npm (minutes) and starts the result.
 */
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT } from '../core/records/fixtures/vectors-path.js';
import { startServer } from './helpers/start-server.js';
import { dockerInstructions, runDockerStages } from './helpers/dockerfile-stages.js';

const run = promisify(execFile);
const DOCKER_INSTRUCTIONS = new Set(['FROM', 'RUN', 'CMD', 'LABEL', 'EXPOSE', 'ENV', 'ADD', 'COPY', 'ENTRYPOINT', 'VOLUME', 'USER', 'WORKDIR', 'ARG', 'ONBUILD', 'STOPSIGNAL', 'HEALTHCHECK', 'SHELL']);
const serveUsage = readFileSync(join(REPO_ROOT, 'server', 'commands', 'serve.ts'), 'utf8');

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

  it('the Dockerfile\'s stages run in order: dependencies without scripts, then sources, build and prune; the last stage runs as a user, with a health check', async function () {
    this.timeout(process.env['LOOM_DOCKERFILE_RUN'] === '1' ? 1_200_000 : 60_000);
    const real = process.env['LOOM_DOCKERFILE_RUN'] === '1';
    const result = await runDockerStages(REPO_ROOT, join(REPO_ROOT, 'examples', 'deploy', 'Dockerfile'), { fake: !real });
    try {
      expect([...result.stages.keys()]).to.have.length.greaterThan(1);
      const app = [...result.stages.values()].pop()!;
      expect(existsSync(join(app, 'dist', 'bin', 'loom.js')), 'dist/bin/loom.js in the last stage').to.equal(true);
      expect(existsSync(join(app, 'node_modules')), 'node_modules in the last stage').to.equal(true);
      expect(existsSync(join(app, 'core')), 'no sources in the last stage').to.equal(false);
      const user = result.final.find((s) => s.op === 'USER')?.args;
      expect(user, 'USER').to.be.a('string').and.not.match(/^(root|0)$/);
      expect(result.final.some((s) => s.op === 'HEALTHCHECK')).to.equal(true);
      if (real) {
        // The production tree alone serves and answers its health check.
        const { spawn } = await import('node:child_process');
        const port = String(19_000 + Math.floor(Math.random() * 900));
        const server = spawn(process.execPath, ['dist/bin/loom.js', 'serve', '--port', port, '--data-dir', join(result.root, 'var-lib-loom')], { cwd: app, stdio: 'ignore' });
        try {
          let ok = false;
          for (let i = 0; i < 100 && !ok; i++) {
            ok = await fetch(`http://127.0.0.1:${port}/health`).then((r) => r.ok, () => false);
            if (!ok) await new Promise((r) => setTimeout(r, 200));
          }
          expect(ok, 'the built server answers /health').to.equal(true);
        } finally {
          server.kill('SIGTERM');
        }
      }
    } finally {
      await result.cleanup();
    }
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
