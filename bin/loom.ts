#!/usr/bin/env -S node --max-semi-space-size=32
/**
 * The `loom` command. `serve` runs the reference server; the client commands
 * talk to a running server through the generated SDK. The server's modules
 * (drivers, plugins, Hapi) are imported only for `serve` and the full usage:
 * loading them made every client command take about a second longer.
 */
import 'reflect-metadata';
import { CliError } from '../command/cli-error.js';
import { provideLocalStore } from '../cli/kit/local-store.js';
import { COMMANDS, findCommand, usages } from './registry.js';
import { nearestName } from '../command/nearest-name.js';

// export/import/restore on a data directory run the server's code here; cli/ never imports it.
provideLocalStore(() => import('../server/store/local-store.js'));

const indent = (text: string) => text.replace(/\n/g, '\n  ');

const usage = async () => `usage: loom <command> [options]   (loom --version prints the version)

commands:
${(await usages()).map((text) => `  ${indent(text)}`).join('\n')}

Client commands reach the server at --url (LOOM_URL, default http://127.0.0.1:9100).
The token sent is --token, else LOOM_TOKEN, else the one saved for that URL in the config
file: LOOM_CONFIG, default $XDG_CONFIG_HOME/loom/config.json or ~/.config/loom/config.json
(mode 0600; written by "loom bootstrap", "loom sa rotate --save", "loom invite redeem --save"
and "loom recover").
--json prints machine-readable output.

Run "loom <command> --help" for a command's options.`;

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  switch (command) {
    case '--version':
    case '-v':
    case 'version':
      process.stdout.write(`loom ${(await import('../core/server/version.js')).LOOM_VERSION}\n`);
      return;
    case undefined:
      // No command is a mistake (a script that lost its arguments): the usage, on stderr, and a failing exit.
      throw new CliError(`no command given\n\n${await usage()}`);
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write((await usage()) + '\n');
      return;
    default: {
      const entry = findCommand(command);
      if (entry) return (await entry.load()).invoke(rest);
      // One line and the nearest command, not the whole help (which scrolls the mistake off the screen).
      const nearest = nearestName(command, COMMANDS.map((c) => c.name));
      throw new CliError(`unknown command "${command}"${nearest ? `; did you mean "loom ${nearest}"?` : ''} (loom --help lists every command)`);
    }
  }
}


/** Whether the command already wrote its answer to stdout (then a failure adds no second JSON document). */
let answered = false;
const write = process.stdout.write.bind(process.stdout);
process.stdout.write = ((...args: Parameters<typeof write>) => {
  answered = true;
  return write(...args);
}) as typeof process.stdout.write;

/** With --json, a failure is also a JSON error envelope on stdout (scripts read one stream); the exit code says it failed. */
function jsonEnvelope(error: unknown): void {
  if (!process.argv.includes('--json') || answered) return;
  const cli = error instanceof CliError ? error : null;
  const parseError = !cli && (error as { code?: unknown })?.code?.toString().startsWith('ERR_PARSE_ARGS');
  const envelope = {
    object: 'error',
    code: cli?.code ?? (parseError ? 'USAGE' : 'FAILED'),
    message: (error instanceof Error ? error.message : String(error)).split('\n')[0],
    ...(cli?.status !== undefined ? { status: cli.status } : {}),
  };
  process.stdout.write(JSON.stringify(envelope) + '\n');
}

/**
 * Node exits with status 0 when nothing is left to wake a pending await (a timer marked unref, a
 * promise nobody settles): the command would end silently, its work half done. A command that has not
 * settled when the event loop empties is a failure, said as one.
 */
let settled = false;
process.on('beforeExit', () => {
  if (settled) return;
  settled = true;
  process.stderr.write('loom: the command stopped before it finished (it was left waiting on nothing); its outcome is unknown: run it again, and report this\n');
  process.exitCode = 1;
});

main(process.argv.slice(2)).finally(() => (settled = true)).catch((error: unknown) => {
  jsonEnvelope(error);
  if (error instanceof CliError) {
    process.stderr.write(`loom: ${error.message}\n`);
    process.exitCode = error.exitCode;
  } else if (error instanceof Error && 'code' in error && typeof (error as { code: unknown }).code === 'string' && (error as { code: string }).code.startsWith('ERR_PARSE_ARGS')) {
    process.stderr.write(`loom: ${error.message}\n`);
    process.exitCode = 2;
  } else {
    process.stderr.write(`loom: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  }
});
