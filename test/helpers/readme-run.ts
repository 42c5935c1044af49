/**
 * Runs the README's shell commands as a reader would: one bash script, in
 * README order, from a scratch directory (its `dist` links to the build, so
 * `alias loom="node $PWD/dist/bin/loom.js"` works), an empty home directory
 * (so `~/.config/loom/config.json` starts empty), `set -e -o pipefail`, and
 * curl failing on an HTTP error. The harness starts the walkthrough's server
 * (`npm start`) itself; the README's ports 9100, 9201 and 9202 become free
 * ports, and LOOM_URL names the first (the CLI's default URL in the README).
 *
 * A command is not run only when a table below says why; a command expected
 * to be refused (the README shows the refusal) must fail. Every table entry
 * must match a command, so the tables cannot outlive the README.
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { shellBlocks, shellCommands, withoutComments } from './readme-shell.js';

/** Sections whose commands need what this machine does not have. */
const NOT_RUN_SECTIONS: Record<string, string> = {
  'Rotating the instance key': 'needs the pair made in "Pairing two instances" on a server started with --federation; test/federation/key-rotation.process.test.ts and test/cli/federation-key-commands.test.ts run these commands',
  'Set up': 'installs and runs the whole suite (the test itself is part of it)',
  'Members (agents the team defines)': 'member definitions name priced models; test/cli/member-commands.test.ts runs them',
  'Memory, export and import': 'needs a member and a second instance; test/cli/member-bundle-commands.test.ts runs them',
  Evals: 'needs finished runs; test/cli/evals-commands.test.ts runs them',
  'Work loops (members doing work)': 'needs a model server (Ollama); test/cli/work-commands.test.ts runs the loop against protocol-exact fakes',
  Runs: 'needs a model server; test/cli/runs-commands.test.ts',
  'Decisions (agents asking people)': 'needs a model server; test/work/decisions.http.test.ts and test/cli/decisions-commands.test.ts run them against protocol-exact fakes',
  'Pairing two instances': 'two more federated servers on ports 9100/9200 with their own admins; test/federation/handshake.process.test.ts and test/cli/federation-handshake-commands.test.ts run this flow',
  "The pair's life: pause, degraded, modes, refresh": 'needs the pair made just above; test/federation/pair-lifecycle.process.test.ts and test/cli/federation-lifecycle-commands.test.ts run these commands',
  'The did:sync directory': 'a server started with --federation on the walkthrough\'s port; test/federation/directory*.test.ts and the CLI tests run it (the example was run by hand as written)',
  // ---- mDNS discovery (issue 35) ----
  'Finding peers on the local network (mDNS)': 'two more servers on fixed ports exchanging real multicast on 5353, which other tests running on the machine share; test/discovery/*.test.ts and test/cli/discovery-commands.test.ts run it (the example was run by hand as written)',
  // ---- end mDNS discovery ----
  'Chat proxy (Anthropic-API clients through Loom)': 'needs a model provider; test/proxy/*.http.test.ts run the proxy against protocol-exact fakes with the official SDK',
  'PostgreSQL and several servers': 'needs a PostgreSQL server',
  // ---- relay mailbox (issue 35) ----
  'The relay mailbox (when direct pulls stop)': 'three federated servers (sender, relay, receiver) paired with their own admins; test/federation/relay.process.test.ts runs this flow and test/cli/federation-relay-commands.test.ts these commands',
  // ---- end relay mailbox ----
};

/** Single commands not run, by a pattern over their text, with the reason. */
const NOT_RUN: ReadonlyArray<readonly [RegExp, string]> = [
  [/^npm start/, 'the harness starts this server (loom serve on a free port)'],
  [/…|<[a-z][a-z_ -]*>|\[--/, 'a placeholder the reader fills in'],
  [/^curl -sN/, 'a feed that runs until Ctrl-C'],
  [/^loom serve --data-dir \.\/data-level/, 'a server in the foreground, until stopped'],
  [/^loom (export|import) .*--data-dir \.\/data\b|^loom import all\.ndjson/, "a stopped server's data directory (the harness's server is running); test/cli/portability-commands.test.ts"],
  [/^ollama |^loom (embedding-provider|embed|search) /, 'needs an embedding server (Ollama); test/http/search*.test.ts use a protocol-exact fake'],
  [/v1\/records\/search/, 'needs an embedding server'],
  [/^loom (invite redeem|self bind-code|recover|members revoke) /, "alice's side, on her own machine; test/cli/identity-commands.test.ts runs it"],
];

/** Commands the README shows being refused: they must fail. */
const REFUSED: readonly RegExp[] = [/^curl -s http:\/\/127\.0\.0\.1:9100\/v1\/threads$/, /-d '\{"thread":"nope"\}'$/];

export interface ReadmeRun {
  readonly ran: number;
  readonly skipped: ReadonlyArray<{ command: string; reason: string }>;
  readonly unusedExemptions: string[];
  /** The failing command and its exit, or null. */
  readonly failure: string | null;
  readonly log: string;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export async function runReadmeCommands(root: string): Promise<ReadmeRun> {
  const readme = await readFile(join(root, 'README.md'), 'utf8');
  const ports: Record<string, number> = { '9100': await freePort(), '9201': await freePort(), '9202': await freePort() };
  const withPorts = (text: string) => text.replace(/\b(9100|9201|9202)\b/g, (p) => String(ports[p]));
  const used = new Set<string>();
  const skipped: Array<{ command: string; reason: string }> = [];
  const commands: string[] = [];
  const lines: string[] = [];
  for (const block of shellBlocks(readme)) {
    const sectionReason = NOT_RUN_SECTIONS[block.section];
    if (sectionReason) used.add(`section ${block.section}`);
    for (const command of shellCommands(block.text)) {
      const exemption = sectionReason ? null : NOT_RUN.find(([pattern]) => pattern.test(withoutComments(command)));
      if (sectionReason || exemption) {
        if (exemption) used.add(String(exemption[0]));
        skipped.push({ command, reason: sectionReason ?? exemption![1] });
        continue;
      }
      const n = commands.push(command);
      const refused = REFUSED.find((pattern) => pattern.test(command));
      if (refused) used.add(String(refused));
      lines.push(`__cmd=${n}`);
      lines.push(refused ? `if ( ${withPorts(command)} ); then echo "README command ${n} was not refused" >&2; exit 97; fi` : withPorts(command));
    }
  }
  const unusedExemptions = [
    ...Object.keys(NOT_RUN_SECTIONS).map((s) => `section ${s}`),
    ...NOT_RUN.map(([p]) => String(p)),
    ...REFUSED.map(String),
  ].filter((key) => !used.has(key));

  const scratch = await mkdtemp(join(tmpdir(), 'loom-readme-'));
  try {
    await symlink(join(root, 'dist'), join(scratch, 'dist'));
    await mkdir(join(scratch, 'home'));
    await writeFile(join(scratch, 'report.pdf'), '%PDF-1.4 a report\n'); // the reader's own file in `loom data put ./report.pdf`
    const script = [
      'set -E -e -o pipefail',
      'shopt -s expand_aliases',
      // --fail-with-body unless the command already says -f (curl refuses both)
      'curl() { case " $* " in *" -sf "*|*" -f "*) command curl "$@";; *) command curl --fail-with-body "$@";; esac; }',
      `trap 'echo "README command $__cmd failed (exit $?)" >&2' ERR`,
      `node dist/bin/loom.js serve --port ${ports['9100']} --data-dir ./data > server.log 2>&1 &`,
      `until command curl -sf http://127.0.0.1:${ports['9100']}/health > /dev/null; do sleep 0.2; done`,
      ...lines,
      'echo "README commands done" >&2',
    ].join('\n');
    await writeFile(join(scratch, 'readme.sh'), script);
    const env: NodeJS.ProcessEnv = { PATH: process.env['PATH'], HOME: join(scratch, 'home'), LOOM_URL: `http://127.0.0.1:${ports['9100']}`, LANG: 'C.UTF-8' };
    const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve) => {
      const child = spawn('bash', ['readme.sh'], { cwd: scratch, env, detached: true });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 200_000);
      child.on('close', (exit) => {
        clearTimeout(timer);
        // the servers the script started in the background share its process group
        try {
          process.kill(-child.pid!, 'SIGTERM');
        } catch {
          // already gone
        }
        resolve({ code: exit, output });
      });
    });
    const failed = /README command (\d+) (failed \(exit \d+\)|was not refused)/.exec(output);
    const failure = code === 0 ? null : failed ? `${failed[0]}:\n${commands[Number(failed[1]) - 1]}` : `the script exited ${code}`;
    return { ran: commands.length, skipped, unusedExemptions, failure, log: `${failure ?? ''}\n--- output ---\n${output.slice(-6000)}` };
  } finally {
    await new Promise((r) => setTimeout(r, 500));
    await rm(scratch, { recursive: true, force: true });
  }
}
