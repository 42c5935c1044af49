/**
 * `loom actors export <did>` and `loom actors import <did> <file>`: a
 * member carried as a bundle (GET /v1/actors/{did}/export, POST
 * /v1/actors/{did}/import). The bundle is written as JSON to --out (or
 * printed); import reads it from a file (`-`: standard input). --json prints
 * the server's answer (import) or, with --out, what was written.
 */
import { readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { subcommand } from '../../../command/define-command.js';
import { CliError } from '../../../command/cli-error.js';
import { call, clientContext, CLIENT_OPTIONS, print } from '../../kit/context.js';
import { didArgument } from '../../kit/options.js';
import type { MemberBundle, MemberImport } from '../../../sdk/index.js';

export const ACTOR_BUNDLE_USAGE = `loom actors export <did> [--include-memories] [--out file] [--url …] [--token …] [--json]
loom actors import <did> <file|-> [--discount 0.5] [--merge] [--dry-run] [--url …] [--token …] [--json]
  export: the member's identity, trust by domain, skills and (--include-memories) memories, with a digest;
  never its definition. import: into the member defined here with the same label; --discount scales the
  trust brought (default 0.5), --merge keeps memories already held, --dry-run writes nothing.`;

function discountOption(text: string | undefined): number {
  if (text === undefined) return 0.5;
  const value = Number(text);
  if (text.trim() === '' || !(value >= 0 && value <= 1)) throw new CliError('--discount must be a number in [0, 1]');
  return value;
}

function importText(r: MemberImport): string {
  const lines = [
    `${r.dry_run ? 'would import' : 'imported'} into ${r.did} (${r.display_name}) from ${r.source_did}:`,
    `  ${r.skills_imported} skills, ${r.memories_imported} other memories${r.memories_skipped > 0 ? `, ${r.memories_skipped} kept as held (--merge)` : ''}, ${r.pattern_count} patterns (not kept)`,
    ...r.trust_summaries.map((t) => `  trust ${t.domain}: ${t.imported_score} (source ${t.source_score}, weight ${t.imported_weighted_total} of ${t.source_weighted_total})`),
  ];
  return lines.join('\n') + '\n';
}

async function readBundle(file: string): Promise<MemberBundle> {
  let text: string;
  try {
    text = file === '-' ? readFileSync(0, 'utf8') : await readFile(file, 'utf8');
  } catch (error) {
    throw new CliError(`cannot read ${file}: ${(error as Error).message}`, 1);
  }
  try {
    return JSON.parse(text) as MemberBundle;
  } catch (error) {
    throw new CliError(`${file} is not JSON: ${(error as Error).message}`, 1);
  }
}

export const actorBundleSubcommands = {
  export: subcommand({
    summary: 'a member as a bundle: identity, trust, skills and, asked, memories (records:read)',
    args: ['<did>'],
    options: {
      ...CLIENT_OPTIONS,
      'include-memories': { type: 'boolean', default: false, help: 'carry every memory, not only skills' },
      out: { type: 'string', value: 'file', help: 'write the bundle here (else print it)' },
    },
    run: async ({ values, positionals }) => {
      if (positionals.length !== 1) throw new CliError(`loom actors export takes one member DID\n${ACTOR_BUNDLE_USAGE}`);
      const did = didArgument('the member', positionals[0]!);
      const ctx = clientContext(values);
      const { data } = await call(ctx, ctx.client.exportActor({ path: { did }, query: { include_memories: values['include-memories'] === true } }));
      const text = JSON.stringify(data, null, 2) + '\n';
      if (values.out === undefined) return void process.stdout.write(text);
      await writeFile(values.out, text);
      const written = { object: 'bundle_written', path: values.out, did, digest: data.digest, skills: data.skills.length, memories: data.memories?.length ?? 0, trust_domains: data.trust_profile.domains.length };
      print(ctx, written, () => `wrote ${did} to ${values.out}: ${written.skills} skills, ${written.memories} other memories, trust in ${written.trust_domains} domains (${data.digest})\n`);
    },
  }),
  import: subcommand({
    summary: 'import a bundle into a member defined here with the same label (records:write)',
    args: ['<did>', '<file|->'],
    options: {
      ...CLIENT_OPTIONS,
      discount: { type: 'string', value: '0..1', help: 'share of the source trust brought (default 0.5)' },
      merge: { type: 'boolean', default: false, help: 'keep memories already held and add the rest' },
      'dry-run': { type: 'boolean', default: false, help: 'check and report, write nothing' },
    },
    run: async ({ values, positionals }) => {
      if (positionals.length !== 2) throw new CliError(`loom actors import takes a member DID and a bundle file\n${ACTOR_BUNDLE_USAGE}`);
      const did = didArgument('the member', positionals[0]!);
      const trustDiscount = discountOption(values.discount);
      const bundle = await readBundle(positionals[1]!);
      const ctx = clientContext(values);
      const body = { bundle, trust_discount: trustDiscount, merge: values.merge === true, dry_run: values['dry-run'] === true };
      const { data } = await call(ctx, ctx.client.importActor({ path: { did }, body }));
      print(ctx, data, () => importText(data));
    },
  }),
};
