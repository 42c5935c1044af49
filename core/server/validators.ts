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

export type Validator = (value: unknown) => unknown;

export function compileValidator(part: 'params' | 'query' | 'body' | 'headers', schema: TSchema, invalidInput: ErrorCode): Validator {
  const check = Compile(schema);
  const convert = part !== 'body';
  return (value) => {
    // A missing body reads as no fields when the route has no required ones (DELETE … with an optional {note}).
    let candidate = value === undefined && (part !== 'body' || check.Check({})) ? {} : value;
    if (candidate !== undefined) {
      if (convert) candidate = Value.Convert(schema, candidate);
      candidate = Value.Default(schema, candidate);
    }
    if (candidate === undefined) throw new LoomError(invalidInput, `${part}: a JSON body is required`);
    if (!check.Check(candidate)) {
      const first = check.Errors(candidate)[0];
      const where = first ? `${part}${first.instancePath.replace(/\//g, '.')}` : part;
      throw new LoomError(invalidInput, `${where}: ${first?.message ?? 'is invalid'}`);
    }
    return candidate;
  };
}
