/**
 * `loom directory verify|keygen|genesis|update|revoke`: the did:sync
 * directory from the client side. verify is offline: it recomputes an
 * identity from its operations export (GET /directory/{hash}/operations) with
 * the directory's own pure rules (plugins/federation/directory: the same
 * files the server's gate and fold run) and prints the DID document the
 * chain gives, byte for byte, or compares it with --expect. genesis, update
 * and revoke sign an operation with a key file (64 hex seed, as keygen and
 * `loom blueprint keygen` write) and print it, or send it with --submit.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { defineCommand, subcommand } from '../../../command/define-command.js';
import { CliError } from '../../../command/cli-error.js';
import { operationHash, type ServiceEntry } from '../../../plugins/federation/directory/directory-operation.js';
import { operationKeyFromSeed, revokeOp, syncOp, type OperationKey } from '../../../plugins/federation/directory/operation-signer.js';
import { verifyOperations } from '../../../plugins/federation/directory/verify-operations.js';
import { call, clientContext, CLIENT_OPTIONS, parseListOption, print } from '../../kit/context.js';
import { writeNewKeyFile } from '../members/blueprint-key.js';

export const DIRECTORY_USAGE = `loom directory verify <operations.json> [--expect <did.json>] [--json]
  Offline: recomputes the identifier from the genesis, every hash, signature and prev link and the
  revoke, then prints the DID document the operations give (canonical JSON, byte for byte what
  GET /directory/{hash}/did.json serves), or compares it with --expect. Exit 1 on any mismatch,
  naming the failing operation.
loom directory keygen <keyfile> [--json]
  Creates an Ed25519 key file (64 hex seed, mode 0600) and prints its did:key.
loom directory genesis --key <keyfile> [--rotation-keys <did:key>,…] [--methods <id>=<did:key>,…]
                       [--services <id>=<type>=<url>,…] [--handle <handle>] [-o <file>] [--submit]
loom directory update <did> --key <keyfile> [--prev <hash>] [same content options] [-o <file>] [--submit]
loom directory revoke <did> --key <keyfile> [--prev <hash>] [-o <file>] [--submit]
  Sign an operation with a current rotation key (default rotation key: the key itself) and print it,
  or send it to the directory with --submit (records:write; with --submit, --prev defaults to the
  identity's head). Each takes [--url …] [--token …] [--json].`;

async function readJson(path: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new CliError(`cannot read ${path}: ${(error as Error).message}`, 1);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new CliError(`${path} is not JSON: ${(error as Error).message}`, 1);
  }
}

async function readKey(path: string | undefined): Promise<OperationKey> {
  if (path === undefined) throw new CliError('--key <keyfile> is required (loom directory keygen creates one)');
  const hex = (await readFile(path, 'utf8').catch((error: Error) => { throw new CliError(`cannot read the key file ${path}: ${error.message}`, 1); })).trim();
  if (!/^[0-9a-f]{64}$/.test(hex)) throw new CliError(`${path} is not a signing key (64 lowercase hex: an Ed25519 seed)`, 1);
  return operationKeyFromSeed(Buffer.from(hex, 'hex'));
}

function pairs(text: string | undefined, what: string, parts: number): string[][] {
  return (parseListOption(text) ?? []).map((item) => {
    const split = item.split('=');
    if (split.length < parts) throw new CliError(`${what}: "${item}" is not ${parts === 2 ? '<id>=<value>' : '<id>=<type>=<url>'}`);
    return parts === 2 ? [split[0]!, split.slice(1).join('=')] : [split[0]!, split[1]!, split.slice(2).join('=')];
  });
}

const suffixOf = (did: string | undefined) => {
  const match = /^(?:did:sync:)?([a-z2-7]{52})$/.exec(did ?? '');
  if (!match) throw new CliError(`a did:sync identifier is needed (did:sync:<52 base32 characters>), got ${JSON.stringify(did)}`);
  return match[1]!;
};

const CONTENT = {
  key: { type: 'string', value: 'keyfile', help: 'the signing key (a current rotation key)' },
  'rotation-keys': { type: 'string', value: 'did:key,…', help: 'the rotation keys, highest priority first (default: the signing key)' },
  methods: { type: 'string', value: 'id=did:key,…', help: 'verification methods' },
  services: { type: 'string', value: 'id=type=url,…', help: 'service endpoints' },
  handle: { type: 'string', value: 'handle', help: 'a unique handle (lowercase DNS-like)' },
  prev: { type: 'string', value: 'hash', help: 'the hash of the operation this one follows' },
  output: { type: 'string', short: 'o', value: 'file', help: 'write the signed operation here' },
  submit: { type: 'boolean', help: 'send it to the directory' },
  ...CLIENT_OPTIONS,
} as const;

type Values = { [K in keyof typeof CONTENT]?: (typeof CONTENT)[K]['type'] extends 'boolean' ? boolean : string } & { json?: boolean };

function content(key: OperationKey, values: Values) {
  const services: Record<string, ServiceEntry> = Object.fromEntries(pairs(values.services, '--services', 3).map(([id, type, endpoint]) => [id, { type: type!, endpoint: endpoint! }]));
  return { rotation_keys: parseListOption(values['rotation-keys']) ?? [key.did], verification_methods: Object.fromEntries(pairs(values.methods, '--methods', 2)), services, handle: values.handle ?? null };
}

async function head(values: Values, suffix: string): Promise<string> {
  if (values.prev !== undefined) return values.prev;
  if (!values.submit) throw new CliError('--prev <hash> is required (or --submit, which reads the head from the directory)');
  const ctx = clientContext(values);
  const { data } = await call(ctx, ctx.client.listDirectoryOperations({ path: { hash: suffix } }));
  return data.operations[data.operations.length - 1]!.hash;
}

async function emit(values: Values, operation: Record<string, unknown>, send: () => Promise<unknown>): Promise<void> {
  const text = JSON.stringify(operation, null, 2) + '\n';
  if (values.output !== undefined) await writeFile(values.output, text);
  if (values.submit) {
    const receipt = await send();
    const r = receipt as { did: string; hash: string; state: string };
    return void process.stdout.write(values.json ? JSON.stringify(receipt, null, 2) + '\n' : `${r.did}: ${r.state}, head ${r.hash}\n`);
  }
  if (values.output === undefined) return void process.stdout.write(text);
  process.stdout.write(values.json ? JSON.stringify({ object: 'directory_operation_file', file: values.output, hash: operationHash(operation as never) }, null, 2) + '\n' : `${values.output}: operation ${operationHash(operation as never)}\n`);
}

export const directory = defineCommand({
  name: 'directory',
  summary: 'the did:sync directory: verify an operations export offline; make, sign and submit operations',
  usage: DIRECTORY_USAGE,
  json: true,
  bareIsHelp: true,
  subcommands: {
    verify: subcommand({
      summary: 'verify an operations export offline and print (or compare) the DID document it gives',
      args: ['<operations.json>'],
      options: { expect: { type: 'string', value: 'did.json', help: 'compare the rendered document with this file, byte for byte' } },
      run: async ({ values, positionals }) => {
        if (positionals.length !== 1) throw new CliError(`loom directory verify takes one operations file\n${DIRECTORY_USAGE}`);
        const result = verifyOperations(await readJson(positionals[0]!));
        let mismatch: string | null = null;
        if (result.ok && values.expect !== undefined) {
          const expected = (await readFile(values.expect, 'utf8').catch((error: Error) => { throw new CliError(`cannot read ${values.expect}: ${error.message}`, 1); })).replace(/\n$/, '');
          const rendered = result.document ?? '';
          if (expected !== rendered) mismatch = result.document === null ? `the identity is revoked: it has no document, ${values.expect} has one` : `${values.expect} differs from the document the operations give${firstDifference(expected, rendered)}`;
        }
        const ok = result.ok && mismatch === null;
        if (values.json) process.stdout.write(JSON.stringify({ ...result, ok, ...(values.expect !== undefined ? { expect: values.expect, matches: mismatch === null && result.ok } : {}) }, null, 2) + '\n');
        else if (!result.ok) {
          const f = result.failure!;
          process.stderr.write(`verification failed${f.index === null ? '' : ` at operation ${f.index}${f.hash ? ` (${f.hash})` : ''}`}: ${f.code}: ${f.message}\n`);
        } else if (mismatch !== null) process.stderr.write(`${result.did}: ${mismatch}\n`);
        else if (values.expect !== undefined) process.stdout.write(`${result.did}: ${result.operations} operation(s) verified, ${result.state}; ${values.expect} matches byte for byte\n`);
        else if (result.document !== null) process.stdout.write(result.document + '\n');
        else process.stdout.write(`${result.did}: ${result.operations} operation(s) verified; revoked (no document)\n`);
        if (!ok) process.exitCode = 1;
      },
    }),
    keygen: subcommand({
      summary: 'create an Ed25519 key file and print its did:key',
      args: ['<keyfile>'],
      options: {},
      run: async ({ values, positionals }) => {
        if (positionals.length !== 1) throw new CliError(`loom directory keygen takes the new key file's path\n${DIRECTORY_USAGE}`);
        const key = await writeNewKeyFile(positionals[0]!);
        process.stdout.write(values.json ? JSON.stringify({ object: 'directory_key', file: positionals[0], did: key.did }, null, 2) + '\n' : `${key.did}\nkey written to ${positionals[0]} (keep it private)\n`);
      },
    }),
    genesis: subcommand({
      summary: 'sign a genesis operation (and --submit it)',
      options: CONTENT,
      run: async ({ values }) => {
        const key = await readKey(values.key);
        const op = syncOp(key, content(key, values), null);
        await emit(values, op as never, async () => {
          const ctx = clientContext(values);
          return (await call(ctx, ctx.client.createDirectoryIdentity({ body: op as never }))).data;
        });
      },
    }),
    update: subcommand({
      summary: "sign an update replacing an identity's keys, services and handle (and --submit it)",
      args: ['<did>'],
      options: CONTENT,
      run: async ({ values, positionals }) => {
        const suffix = suffixOf(positionals[0]);
        const key = await readKey(values.key);
        const op = syncOp(key, content(key, values), await head(values, suffix));
        await emit(values, op as never, async () => {
          const ctx = clientContext(values);
          return (await call(ctx, ctx.client.updateDirectoryIdentity({ path: { hash: suffix }, body: op as never }))).data;
        });
      },
    }),
    revoke: subcommand({
      summary: 'sign the revoke of an identity, terminal (and --submit it)',
      args: ['<did>'],
      options: { key: CONTENT.key, prev: CONTENT.prev, output: CONTENT.output, submit: CONTENT.submit, ...CLIENT_OPTIONS },
      run: async ({ values, positionals }) => {
        const suffix = suffixOf(positionals[0]);
        const key = await readKey(values.key);
        const op = revokeOp(key, await head(values, suffix));
        await emit(values, op as never, async () => {
          const ctx = clientContext(values);
          return (await call(ctx, ctx.client.revokeDirectoryIdentity({ path: { hash: suffix }, body: op }))).data;
        });
      },
    }),
  },
});

function firstDifference(a: string, b: string): string {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return ` (first difference at byte ${i})`;
}
