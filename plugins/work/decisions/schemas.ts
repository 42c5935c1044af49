/** Wire shapes of the decision doors (spec §4.9). */
import { Type } from 'typebox';
import { RunAskSchema } from '../../members/index.js';
import { DECISION_LIMIT_DEFAULT, DECISION_LIMIT_MAX } from './decision-service.js';

const Did = Type.String({ minLength: 1, maxLength: 512 });
const ThreadId = Type.String({ minLength: 1, maxLength: 512 });

export const DecisionListQuery = Type.Object(
  {
    run: Type.Optional(Type.String({ minLength: 1, maxLength: 512, description: 'Only the decision of this run (its thread).' })),
    actor: Type.Optional(Type.String({ minLength: 1, maxLength: 512, description: 'Only decisions this member asks.' })),
    thread: Type.Optional(Type.String({ minLength: 1, maxLength: 512, description: 'Only decisions on this thread.' })),
    after: Type.Optional(Type.String({ maxLength: 32, description: 'next_cursor of the previous page.' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: DECISION_LIMIT_MAX, description: `Decisions at most (default ${DECISION_LIMIT_DEFAULT}).` })),
  },
  { additionalProperties: false },
);

export const DecisionSchema = Type.Object(
  {
    object: Type.Literal('decision'),
    state: Type.Literal('pending'),
    ...RunAskSchema.properties,
    thread: ThreadId,
    run: Type.String({ description: 'The run that waits on it (its thread).' }),
    actor: Did,
    actor_name: Type.Union([Type.String(), Type.Null()]),
    goal: Type.String(),
    started_by: Type.Union([Type.String(), Type.Null()]),
    sequence: Type.Integer({ description: 'Log sequence of the request: the list is in this order.' }),
  },
  { $id: 'Decision' },
);

export const DecisionPageSchema = Type.Object(
  {
    object: Type.Literal('list'),
    data: Type.Array(DecisionSchema),
    has_more: Type.Boolean(),
    next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as after for the next page.' }),
  },
  { $id: 'DecisionPage' },
);

export const DecisionIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 128, description: 'The decision request record id.' }) }, { additionalProperties: false });

/** The answer fields (spec §4.9), shared with the run-events door's `{type: decision}`. */
export const decideFields = {
  decision: Type.String({ minLength: 1, maxLength: 64, description: 'An option id; approve or reject for an older ask; other (with provided_value) where allow_other.' }),
  reason: Type.Optional(Type.String({ maxLength: 5_000, description: 'Why: the run reads it verbatim (a rejected call’s result carries it).' })),
  provided_value: Type.Optional(Type.String({ maxLength: 20_000, description: 'Your own words, with decision other.' })),
  decisions: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 20, description: 'Several option ids, where the ask is multi.' })),
};

export const DecideBody = Type.Object(decideFields, { additionalProperties: false });

export const DecisionOutcomeSchema = Type.Object(
  {
    object: Type.Literal('decision_outcome'),
    decision: Type.String({ description: 'The request answered.' }),
    answer: Type.String({ description: 'The core.work.decision_answer.v1 DO that fulfils it.' }),
    kind: Type.Union([Type.Literal('tool_call'), Type.Literal('ask'), Type.Literal('blueprint_proposal')]),
    run: Type.String(),
    chosen: Type.Array(Type.String()),
    approved: Type.Union([Type.Boolean(), Type.Null()], { description: 'For an approve/reject ask; else null.' }),
    words: Type.String({ description: 'What the run resumes on: labels and descriptions, or the provided sentence; never an id.' }),
    installed: Type.Union([Type.Boolean(), Type.Null()], { description: 'A blueprint proposal: whether it was installed; else null.' }),
    plan: Type.Union(
      [
        Type.Object({
          plan_hash: Type.String(),
          blueprint_record: Type.Union([Type.String(), Type.Null()]),
          members: Type.Array(Type.Object({ label: Type.String(), actor_did: Type.String(), change: Type.String(), definition: Type.String() })),
        }),
        Type.Null(),
      ],
      { description: 'The plan installed as the approver (an approved blueprint proposal); else null.' },
    ),
  },
  { $id: 'DecisionOutcome' },
);
