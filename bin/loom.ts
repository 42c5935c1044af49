#!/usr/bin/env -S node --max-semi-space-size=32
/**
 * The `loom` command. `serve` runs the reference server; the client commands
 * talk to a running server through the generated SDK. The server's modules
 * (drivers, plugins, Hapi) are imported only for `serve` and the full usage:
 * loading them made every client command take about a second longer.
 */
import 'reflect-metadata';
import { actors, ACTORS_USAGE } from '../cli/commands/actors/actors.js';
import { bootstrap, BOOTSTRAP_USAGE } from '../cli/commands/auth/bootstrap.js';
import { CliError } from '../command/cli-error.js';
import { consent, CONSENT_USAGE } from '../cli/commands/federation/consent.js';
import { CLIENT_COMMANDS, CLIENT_USAGE } from '../cli/commands/ledger/records.js';
import type { Command } from '../cli/kit/context.js';
import { data, DATA_USAGE } from '../cli/commands/data-plane/data.js';
import { doctor, DOCTOR_USAGE } from '../cli/commands/doctor.js';
import { engine, ENGINE_USAGE } from '../cli/commands/rules/engine.js';
import { fleet, FLEET_USAGE } from '../cli/commands/fleet/fleet.js';
import { fold, FOLD_USAGE } from '../cli/commands/folds/fold.js';
import { grant, GRANT_USAGE } from '../cli/commands/auth/grant.js';
import { graph, GRAPH_USAGE } from '../cli/commands/graph/graph.js';
import { invite, INVITE_USAGE } from '../cli/commands/auth/invite.js';
import { members, MEMBERS_USAGE } from '../cli/commands/auth/members.js';
import { recover, RECOVER_USAGE, self, SELF_USAGE } from '../cli/commands/auth/self.js';
import { embed, embeddingProvider, find, search, SEARCH_USAGE } from '../cli/commands/search/search.js';
import { backupCommand, exportCommand, importCommand, PORTABILITY_USAGE, restoreCommand } from '../cli/commands/portability/portability.js';
import { sa, SA_USAGE } from '../cli/commands/auth/service-account.js';
import { sync, SYNC_USAGE } from '../cli/commands/federation/sync.js';
import { trust, TRUST_USAGE } from '../cli/commands/trust/trust.js';
import { whoami, WHOAMI_USAGE } from '../cli/commands/auth/whoami.js';

const COMMANDS: Record<string, Command> = { ...CLIENT_COMMANDS, bootstrap, sa, whoami, invite, members, grant, self, recover, fleet, engine, trust, actors, fold, graph, data, sync, consent, search, find, embed, 'embedding-provider': embeddingProvider, doctor, export: exportCommand, import: importCommand, backup: backupCommand, restore: restoreCommand };

const indent = (text: string) => text.replace(/\n/g, '\n  ');

const usage = async () => `usage: loom <command> [options]   (loom --version prints the version)

commands:
  ${indent((await import('../server/commands/serve.js')).SERVE_USAGE)}
  ${indent(BOOTSTRAP_USAGE)}
  ${indent(DOCTOR_USAGE)}
  ${indent(WHOAMI_USAGE)}
  ${indent(SA_USAGE)}
  ${indent(INVITE_USAGE)}
  ${indent(MEMBERS_USAGE)}
  ${indent(GRANT_USAGE)}
  ${indent(SELF_USAGE)}
  ${indent(RECOVER_USAGE)}
  ${indent(FLEET_USAGE)}
  ${indent(ENGINE_USAGE)}
  ${indent(CLIENT_USAGE)}
  ${indent(FOLD_USAGE)}
  ${indent(TRUST_USAGE)}
  ${indent(ACTORS_USAGE)}
  ${indent(GRAPH_USAGE)}
  ${indent(DATA_USAGE)}
  ${indent(SEARCH_USAGE)}
  ${indent(PORTABILITY_USAGE)}
  ${indent(SYNC_USAGE)}
  ${indent(CONSENT_USAGE)}

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
    case 'serve':
      return (await import('../server/commands/serve.js')).serveCommand(rest);
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
      const run = Object.prototype.hasOwnProperty.call(COMMANDS, command) ? COMMANDS[command] : undefined;
      if (run) return run(rest);
      throw new CliError(`unknown command "${command}"\n\n${await usage()}`);
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

main(process.argv.slice(2)).catch((error: unknown) => {
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
