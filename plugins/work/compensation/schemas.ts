/** Wire shapes of the compensation review doors (routes/). */
import { Type } from 'typebox';
import { TOP_LIMIT_DEFAULT, TOP_LIMIT_MAX } from './compensation-service.js';

const Count = Type.Integer({ minimum: 0 });

export const CompensationReviewQuery = Type.Object(
  { actor: Type.Optional(Type.String({ minLength: 1, maxLength: 512, description: "Only this member's row (the fleet figures stay the whole fleet's)." })) },
  { additionalProperties: false },
);

export const CompensationTopQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: TOP_LIMIT_MAX, description: `Members at most (default ${TOP_LIMIT_DEFAULT}).` })),
    min_runs: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, description: 'Leave out members with fewer runs (default 1).' })),
  },
  { additionalProperties: false },
);

export const ActorCompensationSchema = Type.Object(
  {
    actor: Type.String({ description: 'The member whose runs were compensated.' }),
    runs: Count,
    compensations: Type.Integer({ minimum: 0, description: 'Compensations in force (a withdrawn verdict or cancellation no longer counts).' }),
    rate: Type.Number({ minimum: 0, description: 'compensations ÷ runs; may pass 1 (one run can be compensated more than once).' }),
    by_seam: Type.Object(
      { cancel: Count, rejected: Count, corrected: Count, retried: Count },
      { description: 'cancel: stopped by a loop_cancel; rejected: a failure verdict on the run or its work; corrected: its work cancelled or corrected; retried: a failed, blocked or halted run taken up again on its source thread.' },
    ),
    by_assumption: Type.Record(Type.String(), Count, { description: "The violated assumption in the compensating record's own words (assumption, violated_assumption or reason), or `unstated`." }),
    anomaly: Type.Number({ minimum: 0, description: 'rate ÷ baseline (see baseline_kind); 0 when nobody in the fleet was compensated.' }),
  },
  { $id: 'ActorCompensation' },
);

export const CompensationReviewSchema = Type.Object(
  {
    object: Type.Literal('compensation_review'),
    watermark: Type.Integer({ minimum: 0, description: 'The log sequence the review covers.' }),
    fleet_actors: Type.Integer({ minimum: 0, description: 'Members with at least one run.' }),
    fleet_runs: Count,
    fleet_compensations: Count,
    fleet_median: Type.Number({ minimum: 0, description: "The median of the fleet's rates." }),
    fleet_rate: Type.Number({ minimum: 0, description: 'All compensations ÷ all runs.' }),
    baseline: Type.Number({ minimum: 0, description: 'What anomaly divides by.' }),
    baseline_kind: Type.Union([Type.Literal('median'), Type.Literal('fleet_rate'), Type.Literal('none')], {
      description: 'median: the fleet median (when above 0); fleet_rate: the pooled rate, when the median is 0; none: nobody was compensated.',
    }),
    data: Type.Array(ActorCompensationSchema, { description: 'Highest anomaly first, then most compensations, then by DID.' }),
  },
  { $id: 'CompensationReview' },
);
