import { Type } from 'typebox';
import { actingDid } from '../../../core/access/caller.js';
import { threadVisibility } from '../../../core/access/restriction.js';
import { TH_ACTOR_REGISTRY } from '../../../core/records/reserved-threads.js';
import { RecordReaderToken } from '../../../core/engine/record-reader.js';
import { LoomError } from '../../../core/errors/loom-error.js';
import { defineRoute } from '../../../core/plugin/route.js';
import { memberRow } from '../member-row.js';
import { MemberServiceToken } from '../member-service.js';
import { MemberDidParams, MemberRowSchema } from '../schemas.js';

const Strings = Type.Array(Type.String());

export const getActorDefinition = defineRoute({
  operationId: 'getActorDefinition',
  method: 'GET',
  path: '/v1/actors/{did}/definition',
  summary: "A member's definition in force",
  description:
    'The member row with every field of the version in force. Readable by whoever may read the roster: a caller with a read restriction (grains) only for the members it defined (others answer 404, so a restricted credential never learns of them).',
  tags: ['members'],
  auth: { scope: 'records:read' },
  request: { params: MemberDidParams },
  responses: {
    200: {
      description: 'The member.',
      schema: Type.Intersect(
        [
          MemberRowSchema,
          Type.Object({
            trust_domain: Type.Union([Type.String(), Type.Null()]),
            brief: Type.Union([Type.String(), Type.Null()]),
            stands_on: Type.Union([Type.String(), Type.Null()]),
            declares_kinds: Strings,
            write_admit: Strings,
            reads: Strings,
            system_prompt_ref: Type.Union([Type.String(), Type.Null()]),
            conversation_loop: Type.Boolean(),
            verification: Type.String(),
            versions: Type.Integer(),
          }),
        ],
        { $id: 'MemberDefinition' },
      ),
    },
  },
  errors: ['ACTOR_UNKNOWN'],
  inject: { members: MemberServiceToken, reader: RecordReaderToken },
  handler: async ({ params, caller }, { members, reader }) => {
    const entry = members.entry(params.did);
    const visible = entry !== null && (threadVisibility(reader.restriction(caller), TH_ACTOR_REGISTRY) === 'all' || entry.current.owner === actingDid(caller));
    if (!entry || !visible) throw new LoomError('ACTOR_UNKNOWN', `no member ${params.did} that this credential may see`);
    const body = entry.current;
    const loop = body.work_loop;
    return {
      ...memberRow(entry),
      trust_domain: body.trust_domain,
      brief: body.brief,
      stands_on: body.stands_on,
      declares_kinds: [...body.declares_kinds],
      write_admit: [...body.write_admit],
      reads: [...loop.reads],
      system_prompt_ref: loop.system_prompt_ref,
      conversation_loop: loop.conversation_loop,
      verification: loop.verification,
      versions: entry.versions.length,
    };
  },
});
