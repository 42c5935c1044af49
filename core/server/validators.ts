/**
 * Request validation from the route's TypeBox schemas: params and query are
 * converted from strings first, defaults are applied, and a failure throws the
 * route's invalid-input LoomError naming the part, path and rule.
 */
import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import Value from 'typebox/value';
import type { ErrorCode } from '../errors/codes.js';
import { LoomError } from '../errors/loom-error.js';
import { validationMessage } from './validation-message.js';

export type Validator = (value: unknown) => unknown;

/** Page-size members: past their bounds they are clamped (spec §8), on every route alike, never refused. */
const CLAMPED_NAMES = new Set(['limit', 'k']);

interface ClampedMember {
  readonly name: string;
  readonly minimum: number | undefined;
  readonly maximum: number | undefined;
}

function clampedMembers(schema: TSchema): ClampedMember[] {
  const properties = (schema as { properties?: Record<string, { type?: unknown; minimum?: unknown; maximum?: unknown }> }).properties ?? {};
  return Object.entries(properties)
    .filter(([name, member]) => CLAMPED_NAMES.has(name) && member.type === 'integer' && (typeof member.minimum === 'number' || typeof member.maximum === 'number'))
    .map(([name, member]) => ({ name, minimum: typeof member.minimum === 'number' ? member.minimum : undefined, maximum: typeof member.maximum === 'number' ? member.maximum : undefined }));
}

function clampLimits(value: Record<string, unknown>, members: readonly ClampedMember[]): void {
  for (const { name, minimum, maximum } of members) {
    const given = value[name];
    if (typeof given !== 'number' || !Number.isInteger(given)) continue;
    if (maximum !== undefined && given > maximum) value[name] = maximum;
    else if (minimum !== undefined && given < minimum) value[name] = minimum;
  }
}

export function compileValidator(part: 'params' | 'query' | 'body' | 'headers', schema: TSchema, invalidInput: ErrorCode): Validator {
  const check = Compile(schema);
  const convert = part !== 'body';
  const clamped = part === 'query' || part === 'body' ? clampedMembers(schema) : [];
  return (value) => {
    // A missing body reads as no fields when the route has no required ones (DELETE … with an optional {note}).
    let candidate = value === undefined && (part !== 'body' || check.Check({})) ? {} : value;
    if (candidate !== undefined) {
      if (convert) candidate = Value.Convert(schema, candidate);
      candidate = Value.Default(schema, candidate);
    }
    if (candidate === undefined) throw new LoomError(invalidInput, `${part}: a JSON body is required`);
    if (clamped.length > 0 && candidate !== null && typeof candidate === 'object') clampLimits(candidate as Record<string, unknown>, clamped);
    if (!check.Check(candidate)) throw new LoomError(invalidInput, validationMessage(part, check.Errors(candidate) as never, schema, candidate));
    return candidate;
  };
}
