/**
 * `trust_query`: trust scores per (actor, domain), all judges together, from
 * the trust plugin's service over the member's view (only verdicts, claims
 * and tasks it may read count); registered only when trust is loaded.
 */
import { Type } from 'typebox';
import type { TrustService } from '../../trust/index.js';
import type { ToolDescriptor } from '../../members/index.js';
import { defineTool } from './define-tool.js';
import { clampLimit } from './tool-record.js';

const LIMIT_DEFAULT = 20;
const LIMIT_MAX = 100;

export function trustQueryTool(trust: TrustService): ToolDescriptor {
  return defineTool({
    name: 'trust_query',
    description:
      'How far actors are trusted, per domain, from the verdicts judges gave on their work (only evidence you may read counts). ' +
      'score is the 95% Wilson lower bound of decayed successes (0..1, half-life 90 days): prefer actors with a higher score and more verdicts (total). ' +
      `Answers {as_of, rows: [{actor, domain, score, successes, failures, total, judges, last_verdict_at}]}, best first; narrow with actor and/or domain. limit defaults to ${LIMIT_DEFAULT}, at most ${LIMIT_MAX}.`,
    inputSchema: Type.Object(
      {
        actor: Type.Optional(Type.String({ minLength: 1, maxLength: 512, description: 'Only this actor DID.' })),
        domain: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Only this domain.' })),
        limit: Type.Optional(Type.Integer({ minimum: 1, maximum: LIMIT_MAX })),
      },
      { additionalProperties: false },
    ),
    direct: true,
    scope: 'records:read',
    readOnly: true,
    destructive: false,
    async run(input, { caller }) {
      const listing = await trust.rows(caller, { actor: input.actor, domain: input.domain }, 'actor_domain');
      return {
        as_of: new Date(listing.asOf).toISOString(),
        rows: listing.rows.slice(0, clampLimit(input.limit, LIMIT_DEFAULT, LIMIT_MAX)).map((row) => ({
          actor: row.actor,
          domain: row.domain,
          score: row.score,
          successes: row.successes,
          failures: row.failures,
          total: row.total,
          judges: row.judges,
          last_verdict_at: row.last_verdict_at,
        })),
        more: listing.rows.length > clampLimit(input.limit, LIMIT_DEFAULT, LIMIT_MAX),
      };
    },
  });
}
