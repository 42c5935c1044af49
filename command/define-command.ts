/**
 * A `loom` command, declared once (as defineRoute declares a route): its
 * name, a one-line summary, its usage text, its options (type, default,
 * help), whether it takes positional arguments and `--json`, and a run
 * function that receives the parsed options and a context. The declaration
 * is the one input to parsing, `--help` and the command list of `loom
 * --help` (bin/registry.ts), so no command writes its own parseArgs or help
 * boilerplate. Parsing is strict: an unknown option is a usage error (exit 2).
 */
import { parseArgs } from 'node:util';

export interface OptionDecl {
  readonly type: 'string' | 'boolean';
  readonly short?: string;
  readonly default?: string | boolean;
  /** One line for the reader of the declaration; the usage text is what `--help` prints. */
  readonly help?: string;
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
  /** Its usage text (what `--help` prints). */
  readonly usage: string;
}

export interface CommandDecl<O extends OptionDecls> {
  readonly name: string;
  readonly summary: string;
  readonly usage: string;
  readonly options: O;
  /** The positional arguments' names; absent means none are accepted. */
  readonly args?: readonly string[];
  /** Adds `--json` (machine-readable output; a failure is a JSON error envelope too). */
  readonly json?: boolean;
  run(parsed: Parsed<O>, context: CommandContext): Promise<void>;
}

/** What the registry holds and bin/loom.ts runs. */
export interface Command {
  readonly name: string;
  readonly summary: string;
  readonly usage: string;
  invoke(argv: readonly string[]): Promise<void>;
}

const HELP = { help: { type: 'boolean', short: 'h', default: false } } as const;
const JSON_OPTION = { json: { type: 'boolean', default: false } } as const;

export function defineCommand<O extends OptionDecls>(decl: CommandDecl<O>): Command {
  const options = { ...decl.options, ...(decl.json ? JSON_OPTION : {}), ...HELP };
  return {
    name: decl.name,
    summary: decl.summary,
    usage: decl.usage,
    async invoke(argv) {
      const { values, positionals } = parseArgs({ args: [...argv], options: options as never, allowPositionals: decl.args !== undefined, strict: true });
      if ((values as { help?: boolean }).help) return void process.stdout.write(decl.usage + '\n');
      await decl.run({ values: values as unknown as OptionValues<O>, positionals }, { name: decl.name, usage: decl.usage });
    },
  };
}

/**
 * A command whose body still parses its own arguments (subcommands with
 * their own options): it joins the registry with its name, summary and usage.
 */
export function argvCommand(name: string, summary: string, usage: string, run: (argv: string[]) => Promise<void>): Command {
  return { name, summary, usage, invoke: (argv) => run([...argv]) };
}
