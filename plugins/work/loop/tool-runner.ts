/**
 * Runs one tool call of a run: refuses what the run was not granted or what
 * fails the tool's input schema (an error result the model reads, never a
 * crash), applies the guardrail to identical failing calls, and runs the
 * tool with the run's credential. Answers what the tool_result record says.
 */
import { createHash } from 'node:crypto';
import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import type { Caller } from '../../../core/access/caller.js';
import { LoomError } from '../../../core/errors/loom-error.js';
import { canonicalJson } from '../../../core/records/canonical-json.js';
import type { JsonObject, JsonValue } from '../../../core/records/json.js';
import type { ToolDescriptor, ToolRegistry } from '../../members/index.js';
import type { CallState, RunState } from './run-state.js';
import { GUARDRAIL_THRESHOLD } from './work-kinds.js';

export interface ToolOutcome {
  readonly ok: boolean;
  readonly output: JsonValue;
  readonly error: { code: string; message: string } | null;
  readonly durationMs: number;
}

/** What the guardrail says of a call before it runs. */
export type GuardrailVerdict = { readonly verdict: 'run' } | { readonly verdict: 'block' | 'halt'; readonly key: string; readonly argsHash: string; readonly count: number };

/** Outputs longer than this are cut (and say so): the model pays for every character, and a record holds at most so much. */
export const MAX_TOOL_OUTPUT_CHARS = 64 * 1024;

const checkers = new WeakMap<TSchema, ReturnType<typeof Compile>>();
function checker(schema: TSchema) {
  let compiled = checkers.get(schema);
  if (!compiled) checkers.set(schema, (compiled = Compile(schema)));
  return compiled;
}

const hashes = new WeakMap<JsonObject, string>();

/** The first 16 hex of the SHA-256 of the input's canonical JSON, once per input object (the guardrail asks for every earlier call's). */
export function argsHash(input: JsonObject): string {
  let hash = hashes.get(input);
  if (hash === undefined) hashes.set(input, (hash = createHash('sha256').update(canonicalJson(input)).digest('hex').slice(0, 16)));
  return hash;
}

/** What makes two calls identical: the input, or (input that was not JSON) the text the model sent, not the `{}` it parsed to. */
function callHash(call: CallState): string {
  return call.inputError !== null && call.rawInput !== null ? argsHash({ raw: call.rawInput }) : argsHash(call.input);
}

/**
 * The guardrail (prior art §1.19): after GUARDRAIL_THRESHOLD identical
 * failures (same tool, same input, same error code) the next identical call
 * is blocked with a synthetic failure; one more identical call after a block
 * halts the run.
 */
export function guardrail(state: RunState, call: CallState): GuardrailVerdict {
  const hash = callHash(call);
  const key = `${call.tool}:${hash}`;
  let failures = 0;
  let lastCode: string | null = null;
  for (const turn of state.turns) {
    for (const earlier of turn.calls) {
      if (earlier === call || earlier.result === null || earlier.tool !== call.tool || callHash(earlier) !== hash) continue;
      if (earlier.result.ok) {
        failures = 0;
        lastCode = null;
      } else if (earlier.result.errorCode !== 'GUARDRAIL_BLOCKED') {
        failures = earlier.result.errorCode === lastCode ? failures + 1 : 1;
        lastCode = earlier.result.errorCode;
      }
    }
  }
  if (failures < GUARDRAIL_THRESHOLD) return { verdict: 'run' };
  const blocked = state.blocked.get(key) ?? 0;
  return { verdict: blocked >= 1 ? 'halt' : 'block', key, argsHash: hash, count: failures + blocked };
}

function cut(output: JsonValue): JsonValue {
  const text = typeof output === 'string' ? output : JSON.stringify(output);
  if (text.length <= MAX_TOOL_OUTPUT_CHARS) return output;
  return `${text.slice(0, MAX_TOOL_OUTPUT_CHARS)}\n[output cut at ${MAX_TOOL_OUTPUT_CHARS} of ${text.length} characters]`;
}

export async function runTool(
  registry: ToolRegistry,
  granted: readonly string[],
  call: CallState,
  context: { caller: Caller; member: string; runThread: string; signal: AbortSignal },
  now: () => number = () => performance.now(),
): Promise<ToolOutcome> {
  const started = now();
  const failed = (code: string, message: string): ToolOutcome => ({ ok: false, output: null, error: { code, message }, durationMs: Math.max(0, Math.round(now() - started)) });
  if (call.inputError !== null) return failed('INPUT_INVALID', `the input was not a JSON object (${call.inputError}); call the tool again with a JSON object`);
  const tool: ToolDescriptor | undefined = granted.includes(call.tool) ? registry.get(call.tool) : undefined;
  if (!tool) return failed('TOOL_NOT_GRANTED', `no tool named ${call.tool} is granted to this run; granted: ${granted.join(', ') || 'none'}`);
  const check = checker(tool.inputSchema);
  if (!check.Check(call.input)) {
    const first = [...check.Errors(call.input)][0] as { instancePath?: string; message?: string } | undefined;
    return failed('INPUT_INVALID', `the input does not match the tool's schema${first ? `: ${first.instancePath || '/'} ${first.message ?? ''}`.trimEnd() : ''}`);
  }
  try {
    const output = await tool.run(call.input, { ...context, callRecord: call.id });
    return { ok: true, output: cut(output), error: null, durationMs: Math.max(0, Math.round(now() - started)) };
  } catch (error) {
    if (error instanceof LoomError) return failed(error.code, error.message);
    return failed('TOOL_FAILED', error instanceof Error ? error.message : String(error));
  }
}
