/**
 * Runs the built `loom` CLI as a child process against a server, as the CLI
 * tests do: `--url` given, LOOM_URL unset, a config file of the test's own,
 * and LOOM_TOKEN only when a token is given. A non-zero exit is answered,
 * not thrown.
 */
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
