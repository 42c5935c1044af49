/**
 * A `loom` command, declared once (as defineRoute declares a route): its
 * name, a one-line summary, its usage text, and either its options, its
 * positional arguments and a run function, or its subcommands, each with its
 * own summary, options, arguments and run. The declaration is the one input
 * to parsing, `--help` and the command list of `loom --help`
 * (bin/registry.ts), so no command writes its own parseArgs or help
 * boilerplate. Parsing is strict: an unknown option is a usage error (exit
 * 2), an option of another subcommand is refused by name, and an unknown
 * subcommand is refused with the usage (exit 2). `loom <command> --help`
 * prints the usage text; `loom <command> <sub> --help` the subcommand's
 * options with their defaults, made from the declaration.
 */
import { parseArgs } from 'node:util';
import { CliError } from './cli-error.js';

export interface OptionDecl {
  readonly type: 'string' | 'boolean';
  readonly short?: string;
  readonly default?: string | boolean;
  /** One line shown by a subcommand's `--help`. */
  readonly help?: string;
  /** The value's placeholder in a subcommand's `--help` (`--grace <secs>`). @default 'value' */
  readonly value?: string;
}

export type OptionDecls = Readonly<Record<string, OptionDecl>>;

type ValueOf<D> = D extends { readonly type: 'boolean' } ? boolean : string;
export type OptionValues<O extends OptionDecls> = { -readonly [K in keyof O]: O[K] extends { readonly default: string | boolean } ? ValueOf<O[K]> : ValueOf<O[K]> | undefined } & {
  json?: boolean;
  help: boolean;
};

export interface Parsed<O extends OptionDecls> {
  readonly values: OptionValues<O>;
  readonly positionals: readonly string[];
}

export interface CommandContext {
  /** The command as typed (`loom thread list` is `thread list`). */
  readonly name: string;
  /** The command's usage text (what `loom <command> --help` prints). */
  readonly usage: string;
}

/** One subcommand of a command (`loom invite create`): its own options, arguments and run. */
export interface SubcommandDecl<O extends OptionDecls> {
  readonly summary: string;
  readonly options: O;
  /** The positional arguments' names as `--help` shows them (`<invite_id>`); absent means none. */
  readonly args?: readonly string[];
  run(parsed: Parsed<O>, context: CommandContext): Promise<void>;
}

/** Declares a subcommand with its options' types checked (as defineCommand does). */
export function subcommand<O extends OptionDecls>(decl: SubcommandDecl<O>): SubcommandDecl<OptionDecls> {
  return decl as unknown as SubcommandDecl<OptionDecls>;
}

interface CommonDecl {
  readonly name: string;
  readonly summary: string;
  /** The usage text `loom <command> --help` prints and `loom --help` lists. */
  readonly usage: string;
  /** Adds `--json` (machine-readable output; a failure is a JSON error envelope too). */
  readonly json?: boolean;
}

export interface CommandDecl<O extends OptionDecls> extends CommonDecl {
  readonly options: O;
  /** The positional arguments' names; absent means none are accepted. */
  readonly args?: readonly string[];
  run(parsed: Parsed<O>, context: CommandContext): Promise<void>;
}

export interface CommandWithSubsDecl extends CommonDecl {
  readonly subcommands: Readonly<Record<string, SubcommandDecl<OptionDecls>>>;
  /** Run when no subcommand is named (`loom actors` is `loom actors list`); else a missing one is refused like an unknown one. */
  readonly defaultSubcommand?: string;
  /** `loom <command>` alone prints the usage (exit 0) instead of refusing. */
  readonly bareIsHelp?: boolean;
  /** The refusal of an unknown (or missing) subcommand. @default `usage:\n<usage>` */
  unknownSubcommand?(sub: string | undefined): string;
}

/** What the registry holds and bin/loom.ts runs. */
export interface Command {
  readonly name: string;
  readonly summary: string;
  readonly usage: string;
  invoke(argv: readonly string[]): Promise<void>;
}

const HELP = { help: { type: 'boolean', short: 'h', default: false } } as const;
const JSON_OPTION = { json: { type: 'boolean', default: false, help: 'machine-readable output' } } as const;
const HELP_WORDS = ['--help', '-h', 'help'];

function parse(argv: readonly string[], options: OptionDecls, positionals: boolean) {
  // parseArgs takes type/short/default only; help and value are for the reader.
  const config = Object.fromEntries(Object.entries(options).map(([name, o]) => [name, { type: o.type, ...(o.short ? { short: o.short } : {}), ...(o.default !== undefined ? { default: o.default } : {}) }]));
  return parseArgs({ args: [...argv], options: config as never, allowPositionals: positionals, strict: true, tokens: true });
}

export function defineCommand<O extends OptionDecls>(decl: CommandDecl<O>): Command;
export function defineCommand(decl: CommandWithSubsDecl): Command;
export function defineCommand(decl: CommandDecl<OptionDecls> | CommandWithSubsDecl): Command {
  const invoke = 'subcommands' in decl ? withSubcommands(decl) : single(decl);
  return { name: decl.name, summary: decl.summary, usage: decl.usage, invoke };
}

function single(decl: CommandDecl<OptionDecls>): Command['invoke'] {
  const options = { ...decl.options, ...(decl.json ? JSON_OPTION : {}), ...HELP };
  return async (argv) => {
    const { values, positionals } = parse(argv, options, decl.args !== undefined);
    if ((values as { help?: boolean }).help) return void process.stdout.write(decl.usage + '\n');
    await decl.run({ values: values as never, positionals }, { name: decl.name, usage: decl.usage });
  };
}

/**
 * A command with subcommands: the options of all its subcommands are parsed
 * together, so an option another subcommand takes is refused by name
 * (`--max-uses applies to loom invite create only`) rather than as unknown.
 */
function withSubcommands(decl: CommandWithSubsDecl): Command['invoke'] {
  const subs = decl.subcommands;
  const extra = { ...(decl.json ? JSON_OPTION : {}), ...HELP };
  const union: Record<string, OptionDecl> = {};
  const owners: Record<string, string[]> = {};
  for (const [name, sub] of Object.entries(subs)) {
    for (const [option, o] of Object.entries(sub.options)) {
      union[option] ??= o;
      (owners[option] ??= []).push(name);
    }
  }
  const refuse = (sub: string | undefined) => new CliError(decl.unknownSubcommand ? decl.unknownSubcommand(sub) : `usage:\n${decl.usage}`);
  return async (argv) => {
    let [name, ...rest] = argv;
    if (HELP_WORDS.includes(name as string)) return void process.stdout.write(decl.usage + '\n');
    if (name === undefined && decl.bareIsHelp) return void process.stdout.write(decl.usage + '\n');
    if (decl.defaultSubcommand !== undefined && (name === undefined || name.startsWith('-'))) {
      rest = argv.slice();
      name = decl.defaultSubcommand;
    }
    if (name === undefined || !Object.prototype.hasOwnProperty.call(subs, name)) throw refuse(name);
    const sub = subs[name]!;
    const { values, positionals, tokens } = parse(rest, { ...union, ...extra }, true);
    // Only options given count: a default of another subcommand's option is no misuse.
    const given = new Set(tokens.flatMap((t) => (t.kind === 'option' ? [t.name] : [])));
    if ((values as { help?: boolean }).help) return void process.stdout.write(subcommandHelp(decl, name, sub, extra) + '\n');
    for (const [option, takers] of Object.entries(owners)) {
      const value = (values as Record<string, unknown>)[option];
      if (!given.has(option) || value === false || takers.includes(name)) continue;
      throw new CliError(`--${option} applies to ${takers.map((s) => `loom ${decl.name} ${s}`).join(' and ')} only`);
    }
    await sub.run({ values: values as never, positionals }, { name: `${decl.name} ${name}`, usage: decl.usage });
  };
}

/** `loom <command> <sub> --help`: its synopsis, summary and options with their defaults, from the declaration. */
function subcommandHelp(decl: CommandWithSubsDecl, name: string, sub: SubcommandDecl<OptionDecls>, extra: OptionDecls): string {
  const options = Object.entries({ ...sub.options, ...extra }).map(([option, o]) => {
    const flag = `${o.short ? `-${o.short}, ` : ''}--${option}${o.type === 'string' ? ` <${o.value ?? 'value'}>` : ''}`;
    const fallback = o.default !== undefined && o.default !== false ? ` (default ${String(o.default)})` : '';
    return `  ${flag.padEnd(28)} ${o.help ?? ''}${fallback}`.trimEnd();
  });
  return [`loom ${decl.name} ${name}${(sub.args ?? []).map((a) => ` ${a}`).join('')} [options]`, `  ${sub.summary}`, '', 'options:', ...options].join('\n');
}
