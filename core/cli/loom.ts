#!/usr/bin/env -S node --max-semi-space-size=32
/**
 * The `loom` command. `serve` runs the reference server; the client commands
 * talk to a running server through the generated SDK.
 */
import 'reflect-metadata';
import { CliError } from './cli-error.js';
import { CLIENT_COMMANDS, CLIENT_USAGE } from './client-commands.js';
import { serveCommand, SERVE_USAGE } from './serve-command.js';

const USAGE = `usage: loom <command> [options]

commands:
  ${SERVE_USAGE.replace(/\n/g, '\n  ')}
  ${CLIENT_USAGE.replace(/\n/g, '\n  ')}

Client commands reach the server at --url (LOOM_URL, default http://127.0.0.1:9100)
with --token (LOOM_TOKEN); --json prints machine-readable output.

Run "loom <command> --help" for a command's options.`;

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'serve':
      return serveCommand(rest);
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(USAGE + '\n');
      return;
    default: {
      const client = Object.prototype.hasOwnProperty.call(CLIENT_COMMANDS, command) ? CLIENT_COMMANDS[command] : undefined;
      if (client) return client(rest);
      throw new CliError(`unknown command "${command}"\n\n${USAGE}`);
    }
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
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
