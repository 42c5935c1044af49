import { Type } from 'typebox';
import { defineRoute } from '../../../../core/plugin/route.js';
import { MemberDidParams } from '../../schemas.js';
import { ComparisonSchema } from '../comparisons.js';
import { EvalServiceToken } from '../eval-service.js';
import { GradeSchema } from '../grade.js';

export const getActorEvals = defineRoute({
  operationId: 'getActorEvals',
  method: 'GET',
  path: '/v1/actors/{did}/evals',
  summary: "A member's grades and how each definition compares with its predecessor",
  description:
    "Grades newest first, one per scoring (the newest 5000; `capped` past that), and per suite each graded definition against the nearest earlier graded one, per axis (structure, substance) with deltas. Answered from a fold. A caller with a read restriction sees grades only when it may read the member's whole evals thread (`thread`).",
  tags: ['members'],
  auth: { scope: 'records:read' },
  request: { params: MemberDidParams },
  responses: {
    200: {
      description: "The member's evals.",
      schema: Type.Object(
        {
          object: Type.Literal('actor_evals'),
          actor: Type.String(),
          thread: Type.String({ description: "The member's evals thread, where its grades are written." }),
          grades: Type.Array(GradeSchema),
          comparisons: Type.Array(ComparisonSchema),
          scan_ceiling: Type.Integer(),
          capped: Type.Boolean(),
        },
        { $id: 'ActorEvals' },
      ),
    },
  },
  errors: ['ACTOR_UNKNOWN'],
  inject: { evals: EvalServiceToken },
  handler: async ({ params, caller }, { evals }) => evals.evals(caller, params.did),
});
