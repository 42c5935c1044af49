/** The health answer's view of one log consumer (core/engine/log-consumer.ts ConsumerStatus). */
import { Type } from 'typebox';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);

export const ConsumerStatusSchema = Type.Object(
  {
    name: Type.String({ description: '<plugin>.<consumer>, the key of its checkpoint.' }),
    plugin: Type.String(),
    state: Type.Union([Type.Literal('stopped'), Type.Literal('standby'), Type.Literal('running'), Type.Literal('caught_up'), Type.Literal('backing_off')], {
      description: 'standby: a leader-only consumer on a server that does not hold the leader lease.',
    }),
    leader_only: Type.Boolean(),
    cursor: Type.Integer({ description: 'Last sequence handed to the consumer.' }),
    head: Type.Integer({ description: 'The log head this server has seen.' }),
    lag: Type.Integer({ description: 'head − cursor.' }),
    checkpoint: Nullable(Type.Integer({ description: 'Last checkpoint saved (null: none kept).' })),
    batches: Type.Integer(),
    records: Type.Integer(),
    consecutive_failures: Type.Integer(),
    last_error: Nullable(Type.Object({ at: Type.String(), message: Type.String() })),
  },
  { $id: 'ConsumerStatus' },
);
