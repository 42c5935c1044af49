/**
 * A Loom tool from a typed declaration: the input schema compiled once, and
 * two checks before `run` that an HTTP client meets before a handler runs.
 * The coarse scope gate (core/server/authorize.ts): the member's credential
 * must cover the tool's scope, since the ingest gates and read policies only
 * judge grains and would let a credential without records:write append. And
 * the input against its schema again: the loop validates it, but a tool is
 * also called from tests and evals, and a bad input must be a coded refusal.
 */
import type { Static, TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { covers, type Scope } from '../../../core/access/scopes.js';
import { LoomError } from '../../../core/errors/loom-error.js';
import type { JsonValue } from '../../../core/records/json.js';
import type { ToolDescriptor } from '../../members/index.js';

/** What a tool runs with (the members plugin's ToolContext): the member's credential, its run, an abort signal. */
export type ToolContext = Parameters<ToolDescriptor['run']>[1];

export const WORK_PLUGIN = 'work';

export interface ToolDeclaration<S extends TSchema> {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: S;
  readonly scope: Scope;
  readonly readOnly: boolean;
  readonly destructive: boolean;
  run(input: Static<S>, context: ToolContext): Promise<JsonValue>;
}

export function defineTool<S extends TSchema>(declaration: ToolDeclaration<S>): ToolDescriptor {
  const validator = Compile(declaration.inputSchema);
  return {
    name: declaration.name,
    description: declaration.description,
    inputSchema: declaration.inputSchema,
    scope: declaration.scope,
    readOnly: declaration.readOnly,
    destructive: declaration.destructive,
    plugin: WORK_PLUGIN,
    async run(input, context) {
      if (!covers(context.caller.scopes, declaration.scope)) {
        throw new LoomError('SCOPE_FORBIDDEN', `this member's credential lacks the scope ${declaration.scope} that ${declaration.name} needs`);
      }
      if (!validator.Check(input)) {
        const first = validator.Errors(input)[0];
        throw new LoomError('INVALID_SHAPE', `${declaration.name} input ${first ? `${first.instancePath || '/'} ${first.message}` : 'does not match its schema'}`);
      }
      return declaration.run(input as Static<S>, context);
    },
  };
}
