/**
 * A Loom tool from a typed declaration: the input schema compiled once, and
 * two checks before `run` that an HTTP client meets before a handler runs.
 * The coarse scope gate (core/server/authorize.ts): the credential must
 * cover the tool's scope, since the ingest gates and read policies only
 * judge grains and would let a credential without records:write append. And
 * the input against its schema again: the loop validates it, but a tool is
 * also called from tests, evals and MCP clients, and a bad input must be a
 * coded refusal.
 *
 * A declaration says `direct: true` when it also runs outside a run (an MCP
 * client calling it as itself): its `run` then sees the ToolContext union
 * and must not assume a run thread. Without it the tool needs a run (its
 * `run` sees RunToolContext), and a direct call is refused before it runs.
 */
import type { Static, TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import { covers, type Scope } from '../../../core/access/scopes.js';
import { LoomError } from '../../../core/errors/loom-error.js';
import type { JsonValue } from '../../../core/records/json.js';
import type { RunToolContext, ToolContext, ToolDescriptor } from '../../members/index.js';

export type { RunToolContext, ToolContext };

export const WORK_PLUGIN = 'work';

interface DeclarationBase<S extends TSchema> {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: S;
  readonly scope: Scope;
  readonly readOnly: boolean;
  readonly destructive: boolean;
  /** It can make a model call (MCP openWorldHint). @default false */
  readonly callsModel?: boolean;
  /** JSON Schema of its JSON-object answer (MCP outputSchema). */
  readonly outputSchema?: TSchema;
}

/** A tool any caller may run, in a run or not. */
export interface DirectToolDeclaration<S extends TSchema> extends DeclarationBase<S> {
  readonly direct: true;
  run(input: Static<S>, context: ToolContext): Promise<JsonValue>;
}

/** A tool only a run may call (it reads its run thread or call record). */
export interface RunToolDeclaration<S extends TSchema> extends DeclarationBase<S> {
  readonly direct?: false;
  run(input: Static<S>, context: RunToolContext): Promise<JsonValue>;
}

export type ToolDeclaration<S extends TSchema> = DirectToolDeclaration<S> | RunToolDeclaration<S>;

export function defineTool<S extends TSchema>(declaration: DirectToolDeclaration<S>): ToolDescriptor;
export function defineTool<S extends TSchema>(declaration: RunToolDeclaration<S>): ToolDescriptor;
export function defineTool<S extends TSchema>(declaration: ToolDeclaration<S>): ToolDescriptor {
  const validator = Compile(declaration.inputSchema);
  const direct = declaration.direct === true;
  return {
    name: declaration.name,
    description: declaration.description,
    inputSchema: declaration.inputSchema,
    scope: declaration.scope,
    readOnly: declaration.readOnly,
    destructive: declaration.destructive,
    plugin: WORK_PLUGIN,
    needsRun: !direct,
    callsModel: declaration.callsModel === true,
    ...(declaration.outputSchema ? { outputSchema: declaration.outputSchema } : {}),
    async run(input, context) {
      if (!covers(context.caller.scopes, declaration.scope)) {
        throw new LoomError('SCOPE_FORBIDDEN', `this credential lacks the scope ${declaration.scope} that ${declaration.name} needs`, { scope: declaration.scope });
      }
      if (!validator.Check(input)) {
        const first = validator.Errors(input)[0];
        throw new LoomError('INVALID_SHAPE', `${declaration.name} input ${first ? `${first.instancePath || '/'} ${first.message}` : 'does not match its schema'}`);
      }
      if (declaration.direct === true) return declaration.run(input as Static<S>, context);
      if (context.runThread === undefined) throw new LoomError('INVALID_SHAPE', `${declaration.name} runs only inside a work loop run`);
      return declaration.run(input as Static<S>, context);
    },
  };
}
