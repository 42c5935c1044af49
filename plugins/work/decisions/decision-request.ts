/**
 * What a run asks a person (spec §2.7, §6): the body of a
 * `core.work.decision_request.v1`, for each of the three ways a run raises
 * one, and the built-in tools a model asks through.
 *
 *   tool_call           a call of a tool the definition names in
 *                       `work_loop.approval_required`, or of a destructive
 *                       tool where the run's tier has `approve_destructive`:
 *                       approve runs it, reject answers the model with the
 *                       reason verbatim (only that call).
 *   ask                 the model called `ask` (offered to every run): the
 *                       tool result is the answer's words.
 *   blueprint_proposal  the model called `propose_blueprint` (a tool a
 *                       definition grants): approving installs the blueprint
 *                       as the approver.
 *
 * Every request names its run, the tool call it is about (record, id,
 * tool, input) and, as a person reads it, the question and the options.
 */
import { Type, type Static } from 'typebox';
import { Compile } from 'typebox/compile';
import type { JsonObject } from '../../../core/records/json.js';
import { BlueprintSchema, KIND_DECISION_REQUEST, type ToolDescriptor } from '../../members/index.js';
import type { ToolSpec } from '../providers/index.js';
import { defineTool } from '../tools/define-tool.js';
import { LoomError } from '../../../core/errors/loom-error.js';
import { APPROVE_REJECT, oneLine, OTHER, type DecisionOption } from './choice.js';

export const ASK_TOOL = 'ask';
export const PROPOSE_BLUEPRINT_TOOL = 'propose_blueprint';

export type DecisionAbout = 'tool_call' | 'ask' | 'blueprint_proposal';

const OptionId = Type.String({ pattern: '^[A-Za-z0-9_-]{1,64}$' });

export const AskInputSchema = Type.Object(
  {
    question: Type.String({ minLength: 1, maxLength: 2_000, description: 'The question, as the person will read it.' }),
    options: Type.Optional(
      Type.Array(
        Type.Object(
          {
            id: Type.Optional(OptionId),
            label: Type.String({ minLength: 1, maxLength: 200 }),
            description: Type.Optional(Type.String({ maxLength: 500, description: 'One line: what choosing it means.' })),
            recommended: Type.Optional(Type.Boolean({ description: 'The option you recommend.' })),
          },
          { additionalProperties: false },
        ),
        { maxItems: 10 },
      ),
    ),
    allow_other: Type.Optional(Type.Boolean({ description: 'Whether the person may answer in their own words instead (default: true when no options are given).' })),
    multi: Type.Optional(Type.Boolean({ description: 'Whether the person may choose several options.' })),
  },
  { additionalProperties: false },
);
export type AskInput = Static<typeof AskInputSchema>;

const askCheck = Compile(AskInputSchema);

/** `ask`, offered to every run beside its granted tools (not in the tool registry: it means nothing outside a run). */
export const ASK_TOOL_SPEC: ToolSpec = {
  name: ASK_TOOL,
  description:
    'Asks a person a question and waits for the answer (minutes or days; nothing runs meanwhile). Give options (label, one-line description, recommended) when the choices are known; allow_other lets them answer in their own words; multi lets them choose several. ' +
    'The answer comes back as this call\'s result, in words. Ask only when you cannot go on well without a person.',
  inputSchema: AskInputSchema as unknown as Record<string, unknown>,
};

export const ProposeInputSchema = Type.Object(
  {
    blueprint: BlueprintSchema,
    extends: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 200 }), { maxItems: 8 })),
    why: Type.Optional(Type.String({ maxLength: 2_000, description: 'Why these members: the person reads it with the plan.' })),
  },
  { additionalProperties: false },
);
export type ProposeInput = Static<typeof ProposeInputSchema>;

/**
 * `propose_blueprint`: a registry tool, so a definition grants it like any
 * other (and a bounded definer needs records:write to). The run engine
 * answers it (a decision); run anywhere else it refuses.
 */
export function proposeBlueprintTool(): ToolDescriptor {
  return defineTool({
    name: PROPOSE_BLUEPRINT_TOOL,
    description:
      'Proposes a blueprint of member actors (the format of POST /v1/blueprints/materialize; it must be signed by a key this instance trusts) to your owner. ' +
      'A person reviews the plan and approves or rejects it; approved, it is installed as that person, within their grant. The result says which, and why.',
    inputSchema: ProposeInputSchema,
    scope: 'records:write',
    readOnly: false,
    destructive: false,
    async run() {
      throw new LoomError('FORBIDDEN', 'propose_blueprint is answered by a person through a run\'s decision: only a running member proposes');
    },
  });
}

/** A decision request's body, less what the driver stamps (run, raised_at_ms). */
export interface RequestFields {
  readonly about: DecisionAbout;
  readonly question: string;
  readonly options: readonly DecisionOption[];
  readonly allow_other: boolean;
  readonly multi: boolean;
  readonly reason?: string;
  readonly proposal_kind?: 'blueprint';
  readonly plan_hash?: string;
  readonly extra?: JsonObject;
}

/** The request body the driver writes (KNOW, as the member, parents [the call record]). */
export function requestBody(fields: RequestFields, run: string, call: { record: string; call_id: string; tool: string; input: JsonObject }, raisedAtMs: number): JsonObject {
  return {
    kind: KIND_DECISION_REQUEST,
    awaits: 'actor_decision',
    run,
    about: fields.about,
    question: fields.question,
    options: fields.options.map((o) => ({ ...o })),
    allow_other: fields.allow_other,
    multi: fields.multi,
    call: { record: call.record, call_id: call.call_id, tool: call.tool, input: call.input },
    proposal_kind: fields.proposal_kind ?? null,
    ...(fields.plan_hash === undefined ? {} : { plan_hash: fields.plan_hash }),
    ...(fields.reason === undefined ? {} : { reason: fields.reason }),
    // The injected clock's time: what the run's wall clock leaves out while it waits (never a timeout).
    raised_at_ms: raisedAtMs,
    ...(fields.extra ?? {}),
  };
}

/** A gated tool call's ask: approve runs it, reject tells the model why. */
export function gateFields(tool: string, why: string): RequestFields {
  return {
    about: 'tool_call',
    question: `Run ${tool}?`,
    options: [
      { ...APPROVE_REJECT[0]!, description: `Run ${tool} with the input shown.` },
      { ...APPROVE_REJECT[1]!, description: `Do not run it; the member reads your reason.` },
    ],
    allow_other: false,
    multi: false,
    reason: why,
  };
}

/** The `ask` call's input as request fields, or why it is not a question a person can answer (an error result the model reads). */
export function askFields(input: JsonObject): RequestFields | { invalid: string } {
  if (!askCheck.Check(input)) {
    const first = [...askCheck.Errors(input)][0] as { instancePath?: string; message?: string } | undefined;
    return { invalid: `the input does not match ask's schema${first ? `: ${first.instancePath || '/'} ${first.message ?? ''}`.trimEnd() : ''}` };
  }
  const ask = input as unknown as AskInput;
  const given = ask.options ?? [];
  const options: DecisionOption[] = given.map((o, index) => ({ id: o.id ?? `option_${index + 1}`, label: oneLine(o.label), description: oneLine(o.description ?? ''), recommended: o.recommended === true }));
  const ids = new Set(options.map((o) => o.id));
  if (ids.size !== options.length) return { invalid: 'two options share an id; give each its own (or none, and Loom numbers them)' };
  if (ids.has(OTHER)) return { invalid: `"${OTHER}" is reserved for an answer in the person's own words (allow_other); give the option another id` };
  const allowOther = ask.allow_other ?? options.length === 0;
  if (options.length === 0 && !allowOther) return { invalid: 'give options, or allow_other: true for an answer in the person\'s own words' };
  return { about: 'ask', question: ask.question.trim(), options, allow_other: allowOther, multi: ask.multi === true && options.length > 1 };
}
