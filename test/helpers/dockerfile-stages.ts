/**
 * Runs a Dockerfile's stages without a container builder (none is installed
 * on the machines that run this suite, and no registry is reachable to pull
 * a base image): each stage is a scratch directory standing for its WORKDIR,
 * `FROM <stage>` starts from a copy of that stage, COPY copies from the build
 * context (the checkout, less the Dockerfile's .dockerignore) or from another
 * stage, and RUN runs in bash in that directory, with absolute paths under
 * the stage's own root. The base image's own contents are not there: apt-get
 * and chown are no-ops, and the machine's Node stands for the image's.
 *
 * With `fake` tools, npm is a stand-in that checks what each npm command
 * needs at that point (a lockfile for `ci`; for anything that runs the
 * project's `prepare` → `build`, the sources) and leaves what it would have
 * made: a fast check of the order of the stages. Without, the real npm runs
 * (minutes: native addons compile).
 */
import { execFile } from 'node:child_process';
import { chmod, cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface Instruction {
  readonly op: string;
  readonly args: string;
}

export interface StageRun {
  /** Each stage's directory (its WORKDIR), by name (or index). */
  readonly stages: Map<string, string>;
  /** The last stage's USER, HEALTHCHECK, CMD, ENV and EXPOSE. */
  readonly final: Instruction[];
  readonly root: string;
  cleanup(): Promise<void>;
}

/** The fake npm: fails like the real one would when what a command needs is missing. */
const FAKE_NPM = `#!/usr/bin/env node
const { existsSync, mkdirSync, writeFileSync } = require('node:fs');
const args = process.argv.slice(2);
const fail = (why) => { console.error('npm (stand-in): ' + why); process.exit(1); };
const sources = () => existsSync('tsconfig.json') && existsSync('core') && existsSync('sdk/openapi-ts.config.ts');
const build = () => { if (!sources()) fail('npm run build needs the sources (tsconfig.json, core/, sdk/), not copied yet'); mkdirSync('dist/bin', { recursive: true }); writeFileSync('dist/bin/loom.js', ''); };
switch (args[0]) {
  case 'ci':
    if (!existsSync('package.json') || !existsSync('package-lock.json')) fail('npm ci needs package.json and package-lock.json');
    mkdirSync('node_modules', { recursive: true });
    // Without --ignore-scripts, npm ci runs the project's prepare script: npm run build.
    if (!args.includes('--ignore-scripts')) build();
    break;
  case 'rebuild':
    if (!existsSync('node_modules')) fail('npm rebuild needs node_modules');
    break;
  case 'run':
    if (args[1] === 'build') { if (!existsSync('node_modules')) fail('npm run build needs node_modules'); build(); }
    else fail('unexpected npm run ' + args[1]);
    break;
  case 'prune':
    if (!existsSync('node_modules')) fail('npm prune needs node_modules');
    writeFileSync('node_modules/.pruned', args.join(' '));
    break;
  default:
    fail('unexpected npm ' + args.join(' '));
}
`;

export function dockerInstructions(text: string): Instruction[] {
  return text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const [op, ...rest] = line.split(/\s+/);
      return { op: op!.toUpperCase(), args: rest.join(' ') };
    });
}

/** The build context: the checkout's tracked files, less what the .dockerignore excludes (top-level names and globs of one segment). */
async function contextFiles(repo: string, ignore: readonly string[]): Promise<string[]> {
  const { stdout } = await run('git', ['ls-files', '-z'], { cwd: repo, maxBuffer: 64 * 1024 * 1024 });
  const patterns = ignore.map((p) => new RegExp(`^${p.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}(/|$)`));
  return stdout.split('\0').filter((file) => file !== '' && !patterns.some((pattern) => pattern.test(file)));
}

export async function runDockerStages(repo: string, dockerfile: string, options: { fake: boolean }): Promise<StageRun> {
  const root = await mkdtemp(join(tmpdir(), 'loom-dockerfile-'));
  try {
    return await runStages(root, repo, dockerfile, options);
  } catch (error) {
    await rm(root, { recursive: true, force: true });
    throw error;
  }
}

async function runStages(root: string, repo: string, dockerfile: string, options: { fake: boolean }): Promise<StageRun> {
  const text = await readFile(dockerfile, 'utf8');
  const ignore = await readFile(`${dockerfile}.dockerignore`, 'utf8').then(
    (t) => t.split('\n').map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('#')),
    () => [] as string[],
  );
  const tools = join(root, 'tools');
  await mkdir(tools);
  for (const [name, body] of [
    ['apt-get', '#!/bin/sh\nexit 0\n'],
    ['chown', '#!/bin/sh\nexit 0\n'],
    ...(options.fake ? [['npm', FAKE_NPM]] : []),
  ] as const) {
    await writeFile(join(tools, name), body);
    await chmod(join(tools, name), 0o755);
  }
  const context = await contextFiles(repo, ignore);
  const stages = new Map<string, string>();
  let current = '';
  let stageRoot = '';
  let index = 0;
  let final: Instruction[] = [];
  const at = (path: string) => (path.startsWith('/app') ? join(current, path.slice(4)) : path.startsWith('/') ? join(stageRoot, path) : join(current, path));
  for (const step of dockerInstructions(text)) {
    switch (step.op) {
      case 'FROM': {
        const [image, , name] = step.args.split(/\s+/);
        stageRoot = join(root, `stage-${index}`);
        current = join(stageRoot, 'app');
        const base = stages.get(image!);
        if (base) await cp(dirname(base), stageRoot, { recursive: true });
        else await mkdir(current, { recursive: true });
        stages.set(name ?? String(index), current);
        index++;
        final = [];
        break;
      }
      case 'WORKDIR':
        if (step.args !== '/app') throw new Error(`WORKDIR ${step.args}: this runner knows /app only`);
        break;
      case 'COPY': {
        const from = /^--from=(\S+)\s+/.exec(step.args);
        const parts = step.args.replace(/^--from=\S+\s+/, '').split(/\s+/);
        const target = at(parts.pop()!);
        for (const source of parts) {
          if (from) {
            const stage = stages.get(from[1]!);
            if (!stage) throw new Error(`COPY --from=${from[1]}: no such stage`);
            const path = at(source).replace(current, stage);
            await cp(path, source.endsWith('/') || target.endsWith('/') ? join(target, source.split('/').filter(Boolean).pop()!) : target, { recursive: true });
          } else if (source === '.') {
            for (const file of context) {
              await mkdir(dirname(join(target, file)), { recursive: true });
              await cp(join(repo, file), join(target, file));
            }
          } else {
            if (!context.includes(source)) throw new Error(`COPY ${source}: not in the build context`);
            await cp(join(repo, source), join(target, source));
          }
        }
        break;
      }
      case 'RUN': {
        const command = step.args.replace(/(^|\s)\/var\//g, `$1${stageRoot}/var/`);
        await run('bash', ['-e', '-o', 'pipefail', '-c', command], { cwd: current, env: { ...process.env, PATH: `${tools}:${process.env['PATH']}` }, maxBuffer: 64 * 1024 * 1024 }).catch((error: { stderr?: string; message: string }) => {
          throw new Error(`RUN ${step.args} failed: ${error.stderr?.trim() || error.message}`);
        });
        break;
      }
      default:
        final.push(step);
    }
  }
  return { stages, final, root, cleanup: () => rm(root, { recursive: true, force: true }) };
}
