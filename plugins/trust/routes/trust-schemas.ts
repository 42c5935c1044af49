/** The trust routes' named schemas: one score row shape for every grouping, the list, and the principal_trust answer. */
import { Type } from 'typebox';

const Did = Type.String({ description: 'A DID.' });
const Id = Type.String({ description: 'Record id.' });

const figures = {
  judges: Type.Integer({ minimum: 1, description: 'Distinct judges behind the figures (1 for a per-judge row).' }),
  successes: Type.Integer({ minimum: 0, description: 'Verdicts in force with a success word (accept, approve, pass, …).' }),
  failures: Type.Integer({ minimum: 0, description: 'Verdicts in force with a failure word (reject, fail, timeout, …).' }),
  total: Type.Integer({ minimum: 1, description: 'successes + failures.' }),
  weighted_successes: Type.Number({ minimum: 0, description: 'Σ 2^(−age/90 days) over the successes, 4 dp; age from each verdict’s receipt time to as_of.' }),
  weighted_total: Type.Number({ minimum: 0, description: 'The same over every verdict in force, 4 dp.' }),
  score: Type.Number({ minimum: 0, maximum: 1, description: 'Wilson lower bound (95%, z = qnorm(0.975)) of weighted_successes out of weighted_total, 4 dp.' }),
  raw_rate: Type.Number({ minimum: 0, maximum: 1, description: 'successes ÷ total, undecayed, 4 dp.' }),
  last_verdict: Id,
  last_verdict_at: Type.String({ format: 'date-time', description: 'When the latest judgment in force was made: receipt time of last_verdict, or of its latest correction.' }),
};

export const TrustScoreSchema = Type.Object(
  {
    object: Type.Literal('trust_score'),
    actor: Type.String({ description: 'The worker: the actor of the judged completion claim (or the task’s latest claimant or assignee).' }),
    domain: Type.String({ description: 'The verdict’s body.domain, else the task INTEND’s, else general.' }),
    judged_by: Type.Union([Did, Type.Null()], { description: 'The judge (body.judged_by_did, else the verdict’s actor; for imported trust, who imported it); null when the row aggregates every judge (group=actor_domain).' }),
    ...figures,
  },
  { $id: 'TrustScore' },
);

export const TrustStatsSchema = Type.Object(
  {
    verdicts: Type.Integer({ description: 'Verdict records folded.' }),
    in_force: Type.Integer({ description: 'Verdicts currently counted (before the read-time rule leaving out aliases judging their own principal).' }),
    unattributed: Type.Integer({ description: 'Verdicts whose judged record is unknown, not a task or claim, or a task with no claim and no assignee.' }),
    self_judgments: Type.Integer({ description: 'Verdicts written or judged by the worker’s own DID (no evidence).' }),
    unrecognized_words: Type.Integer({ description: 'Verdicts and corrections whose word is neither a success nor a failure word.' }),
    corrections: Type.Integer(),
    cancellations: Type.Integer(),
    ignored_revisions: Type.Integer({ description: 'Corrections and cancellations by someone other than the verdict’s actor, or of a cancelled verdict.' }),
    imports: Type.Integer({ description: 'Trust imports folded (core.trust.imported.v1; each replaces the member’s previous one).' }),
    work_items: Type.Integer({ description: 'Tasks and completion claims indexed.' }),
    tracked_verdicts: Type.Integer({ description: 'Verdicts remembered for corrections and cancellations.' }),
  },
  { $id: 'TrustStats' },
);

export const TrustListSchema = Type.Object(
  {
    object: Type.Literal('list'),
    data: Type.Array(TrustScoreSchema),
    has_more: Type.Boolean(),
    next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as `after` for the next page (valid for the same as_of and watermark); null at the end.' }),
    as_of: Type.String({ format: 'date-time', description: 'The reading time decay is applied at (to the minute).' }),
    watermark: Type.Integer({ minimum: 0 }),
    half_life_days: Type.Number(),
    stats: TrustStatsSchema,
  },
  { $id: 'TrustList' },
);

export const PrincipalTrustAnswerSchema = Type.Object(
  {
    fold_name: Type.Literal('principal_trust'),
    cache_key: Type.String({ description: 'principal_trust@<watermark>:<minute>, also served as the ETag.' }),
    watermark: Type.Integer({ minimum: 0 }),
    value: Type.Object({
      as_of: Type.String({ format: 'date-time' }),
      half_life_days: Type.Number(),
      root: Type.Literal('⊤'),
      rows: Type.Array(
        Type.Object(
          {
            object: Type.Literal('principal_trust'),
            principal: Did,
            domain: Type.String(),
            dids: Type.Array(Did, { description: 'The worker DIDs resolving to the principal with evidence in this domain.' }),
            ...figures,
          },
          { $id: 'PrincipalTrust' },
        ),
      ),
    }),
  },
  { $id: 'PrincipalTrustAnswer' },
);
