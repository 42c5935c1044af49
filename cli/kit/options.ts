/** Checks of option values shared by the client commands. */
import { didSyntaxError } from '../../core/records/did-syntax.js';
import { CliError } from '../../command/cli-error.js';

/** An integer option, at least `min`; undefined when absent. */
export function integerOption(name: string, text: string | undefined, min = 0): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (text.trim() === '' || !Number.isSafeInteger(value) || value < min) throw new CliError(`--${name} must be an integer of at least ${min}`);
  return value;
}

/** A non-negative number option; undefined when absent. */
export function numberOption(name: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (text.trim() === '' || !Number.isFinite(value) || value < 0) throw new CliError(`--${name} must be a non-negative number`);
  return value;
}

export const PRESETS = ['reader', 'contributor', 'admin'] as const;
export type Preset = (typeof PRESETS)[number];

export function presetOption(text: string | undefined): Preset | undefined {
  if (text === undefined) return undefined;
  if (!(PRESETS as readonly string[]).includes(text)) throw new CliError(`--preset must be one of ${PRESETS.join(', ')}`);
  return text as Preset;
}

/** The first `length` characters of a long id, for tables. */
export function shortId(id: string, length = 12): string {
  return id.length > length ? id.slice(0, length) + '…' : id;
}

/**
 * Checks a DID the user typed with the rule the server applies, so a typo is
 * named as typed: the server's 400 does not repeat the value, and a filter on
 * a malformed DID would otherwise just match nothing.
 */
export function didArgument(what: string, text: string): string {
  const problem = didSyntaxError(text);
  if (problem !== null) throw new CliError(`${what} ${JSON.stringify(text)} is not a DID: ${problem}`);
  return text;
}
