/**
 * Runs the built `loom` CLI as a child process against a server, as the CLI
 * tests do: `--url` given, LOOM_URL unset, a config file of the test's own,
 * and LOOM_TOKEN only when a token is given. A non-zero exit is answered,
 * not thrown.
 */
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

export const LOOM_CLI = fileURLToPath(new URL('../../bin/loom.js', import.meta.url));
const run = promisify(execFile);

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export async function runLoom(args: readonly string[], options: { url: string; config: string; token?: string }): Promise<CliRun> {
  const env: NodeJS.ProcessEnv = { ...process.env, LOOM_CONFIG: options.config };
  delete env['LOOM_URL'];
  delete env['LOOM_TOKEN'];
  if (options.token !== undefined) env['LOOM_TOKEN'] = options.token;
  try {
    const { stdout, stderr } = await run(process.execPath, [LOOM_CLI, ...args, '--url', options.url], { env });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/**
 * The three expectations CLI tests make of a run: `json` (exit 0, the
 * `--json` answer parsed), `human` (exit 0, no trailing spaces) and
 * `refused` (the given exit status, one `loom:` line on stderr, no stack
 * trace). `run` is the test's own way to start the CLI; extra arguments
 * (a token, a URL) pass through to it.
 */
export function cliExpectations<R extends unknown[]>(run: (args: string[], ...rest: R) => Promise<CliRun>) {
  const where = (args: readonly string[]) => `loom ${args.join(' ')}`;
  return {
    async json(args: string[], ...rest: R): Promise<any> {
      const result = await run([...args, '--json'], ...rest);
      expect(result.code, `${where(args)}: ${result.stderr}`).to.equal(0);
      return JSON.parse(result.stdout);
    },
    async human(args: string[], ...rest: R): Promise<string> {
      const result = await run(args, ...rest);
      expect(result.code, `${where(args)}: ${result.stderr}`).to.equal(0);
      expect(result.stdout, `${where(args)}: no trailing spaces`).not.to.match(/ +\n/);
      return result.stdout;
    },
    async refused(args: string[], code: number, ...rest: R): Promise<string> {
      const result = await run(args, ...rest);
      expect(result.code, `${where(args)}: ${result.stdout}`).to.equal(code);
      expect(result.stderr).to.match(/^loom: /);
      expect(result.stderr).not.to.contain('    at ');
      return result.stderr;
    },
  };
}
