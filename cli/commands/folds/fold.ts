/**
 * `loom fold list`, `loom fold <name> [key]` and `--verify`: the folds the
 * server registers (GET /v1/folds), a fold's value (GET /v1/folds/{name} or
 * /v1/folds/{name}/{key}, records:read), and the offline check of that value
 * (the SDK's verifyFold recomputes it from the records it covers with the
 * same fold code, so a client need not trust the server).
 *
 * Without --json a fold prints only its value, as indented JSON, so it pipes
 * into jq; --json prints the whole answer (fold_name, cache_key, watermark, value).
 */
import { defineCommand } from '../../../command/define-command.js';
import { FoldVerificationError, VERIFIABLE_FOLDS, verifyFold, type FoldAnswer, type FoldList, type FoldVerification } from '../../../sdk/index.js';
import { CliError } from '../../../command/cli-error.js';
import { call, clientContext, CLIENT_OPTIONS, print, type ClientContext } from '../../kit/context.js';
import { textTable } from '../../kit/text-table.js';

/** Exit status of --verify when the server's value differs from the recomputed one (1 is "could not ask", 2 a usage error). */
export const FOLD_MISMATCH_EXIT = 3;

export const FOLD_USAGE = `loom fold list [--url …] [--token …] [--json]
loom fold <name> [<thread>] [--verify] [--url …] [--token …] [--json]
  A fold's value (records:read), over the records you may read: a global fold by name, a thread
  fold (thread_state, turn, frame…) with its thread. Prints the value as JSON; --json prints the
  whole answer with its watermark and cache key. --verify recomputes the value from the records up
  to the answer's watermark and compares: "verified: …" (exit 0) or the differences (exit ${FOLD_MISMATCH_EXIT}).
  Folds that depend on the time they are read (trust) cannot be verified. list: every fold with its scope.`;

/** The server's rule for fold names (the path parameter's pattern). */
const FOLD_NAME = /^[a-z][a-z0-9_]{0,63}$/;

const label = (name: string, key: string | undefined) => (key === undefined ? name : `${name}/${key}`);

function listText(data: FoldList): string {
  const table = textTable(['fold', 'scope', 'description'], data.data.map((f) => [f.name, f.scope, f.description]));
  return data.system_threads.length === 0 ? table : `${table}system threads (skipped by folds over coordination work): ${data.system_threads.join(', ')}\n`;
}

/** A value in a difference line: its JSON, or "absent" when that side has nothing there. */
const shown = (value: unknown) => (value === undefined ? 'absent' : JSON.stringify(value));

export function verificationText(v: FoldVerification, maxDifferences: number): string {
  const what = `${label(v.fold_name, v.key ?? undefined)} at watermark ${v.watermark} over ${v.records} record${v.records === 1 ? '' : 's'}`;
  if (v.ok) return `verified: ${what}\n`;
  const first = v.differences.length >= maxDifferences ? ` (the first ${v.differences.length})` : '';
  return (
    `MISMATCH: ${what}: the server's value differs from the one recomputed from the records${first}:\n` +
    v.differences.map((d) => `  ${d.path}: server ${shown(d.server)}, recomputed ${shown(d.local)}\n`).join('')
  );
}

const MAX_DIFFERENCES = 50;

/**
 * Refuses, before any request, what the SDK cannot recompute, in the CLI's
 * words (the SDK's own message points at an option the CLI does not have).
 */
function checkVerifiable(name: string, key: string | undefined): void {
  const known = VERIFIABLE_FOLDS.find((f) => f.name === name);
  if (!known) throw new CliError(`fold ${name} cannot be verified: the CLI recomputes ${VERIFIABLE_FOLDS.map((f) => f.name).join(', ')} (folds that depend on the time they are read, like trust, cannot be verified from records)`);
  if (known.scope === 'thread' && key === undefined) throw new CliError(`fold ${name} is per thread: loom fold ${name} <thread> --verify`);
  if (known.scope === 'global' && key !== undefined) throw new CliError(`fold ${name} is global: loom fold ${name} --verify, with no key`);
}

async function verify(ctx: ClientContext, name: string, key: string | undefined): Promise<void> {
  checkVerifiable(name, key);
  let result: FoldVerification;
  try {
    result = await verifyFold(ctx.client, name, key, { maxDifferences: MAX_DIFFERENCES });
  } catch (error) {
    if (error instanceof FoldVerificationError) throw new CliError(`cannot verify fold ${label(name, key)}: ${error.message}`, 1);
    throw error;
  }
  print(ctx, result, () => verificationText(result, MAX_DIFFERENCES));
  if (!result.ok) throw new CliError(`fold ${label(name, key)} does not match the records it covers`, FOLD_MISMATCH_EXIT);
}

async function read(ctx: ClientContext, name: string, key: string | undefined): Promise<void> {
  const { data }: { data: FoldAnswer } =
    key === undefined ? await call(ctx, ctx.client.getGlobalFold({ path: { name } })) : await call(ctx, ctx.client.getThreadFold({ path: { name, key } }));
  print(ctx, data, () => JSON.stringify(data.value, null, 2) + '\n');
}

export const fold = defineCommand({
  name: 'fold',
  summary: 'fold answers, verified',
  usage: FOLD_USAGE,
  json: true,
  args: ['list | <name>', '<key>'],
  options: { ...CLIENT_OPTIONS, verify: { type: 'boolean', default: false } },
  run: async ({ values, positionals }) => {
    const [name, key, ...extra] = positionals;
    if (name === 'help') return void process.stdout.write(FOLD_USAGE + '\n');
    if (name === undefined) throw new CliError(`a fold name is required (loom fold list names them)\n${FOLD_USAGE}`);
    if (name === 'list') {
      if (key !== undefined) throw new CliError(`loom fold list takes no arguments (got "${key}")\n${FOLD_USAGE}`);
      if (values.verify) throw new CliError('--verify applies to a fold, not to loom fold list');
      const ctx = clientContext(values);
      const { data } = await call(ctx, ctx.client.listFolds());
      return print(ctx, data, () => listText(data));
    }
    if (extra.length !== 0) throw new CliError(`loom fold takes a fold name and at most one key (got "${extra[0]}" too)\n${FOLD_USAGE}`);
    if (!FOLD_NAME.test(name)) throw new CliError(`"${name}" is not a fold name: lowercase letters, digits and _, starting with a letter (loom fold list names them)`);
    const ctx = clientContext(values);
    return values.verify ? verify(ctx, name, key) : read(ctx, name, key);
  },
});
