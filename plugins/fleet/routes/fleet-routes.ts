/** The fleet routes: status for readers, freeze/thaw/emergency for administrators. */
import { Type } from 'typebox';
import { defineRoute } from '../../../core/plugin/route.js';
import { RecordSchema } from '../../../core/plugin/shared-schemas.js';
import { FleetServiceToken, type ControlOutcome } from '../fleet-service.js';

const When = Type.String({ format: 'date-time' });
const Reason = Type.Optional(Type.String({ maxLength: 500 }));
const Namespace = Type.String({ minLength: 1, maxLength: 256, description: 'A namespace; the control covers it and its descendants (default: records with no namespace).' });

const FreezeSchema = Type.Object(
  {
    namespace: Type.String(),
    level: Type.Union([Type.Literal('soft'), Type.Literal('hard')]),
    since: When,
    hard_after: Type.Union([When, Type.Null()]),
    hard: Type.Boolean({ description: 'The grace window has passed: every write is refused.' }),
    reason: Type.Union([Type.String(), Type.Null()]),
    record_id: Type.String(),
  },
  { $id: 'Freeze' },
);

const FleetStatusSchema = Type.Object(
  {
    object: Type.Literal('fleet'),
    emergency: Type.Union([Type.Object({ since: When, reason: Type.Union([Type.String(), Type.Null()]), record_id: Type.String() }), Type.Null()]),
    freezes: Type.Array(FreezeSchema),
    instances: Type.Array(
      Type.Object(
        {
          instance_did: Type.String(),
          endpoint: Type.Union([Type.String(), Type.Null()]),
          version: Type.String(),
          uptime_secs: Type.Number(),
          active_dispatches: Type.Integer(),
          health: Type.String(),
          at: Type.String(),
          interval_secs: Type.Number(),
          live: Type.Boolean({ description: 'The latest heartbeat is younger than three intervals.' }),
          record_id: Type.String(),
          sequence: Type.Integer(),
          clock: Type.Integer(),
        },
        { $id: 'InstanceHeartbeat' },
      ),
    ),
  },
  { $id: 'FleetStatus' },
);

const ControlOutcomeSchema = Type.Object(
  { object: Type.Literal('fleet_control'), changed: Type.Boolean({ description: 'false: already in that state, nothing written.' }), record: Type.Union([RecordSchema, Type.Null()]) },
  { $id: 'FleetControlOutcome' },
);

const outcome = (result: ControlOutcome) => ({ object: 'fleet_control' as const, changed: result.changed, record: result.record });

export const getFleetStatus = defineRoute({
  operationId: 'getFleetStatus',
  method: 'GET',
  path: '/v1/fleet',
  summary: 'The emergency stop, the freezes in force and every instance’s latest heartbeat',
  tags: ['fleet'],
  auth: { scope: 'config:read' },
  responses: { 200: { description: 'Fleet status.', schema: FleetStatusSchema } },
  errors: [],
  inject: { fleet: FleetServiceToken },
  handler: (_input, { fleet }) => fleet.status(),
});

export const freezeNamespace = defineRoute({
  operationId: 'freezeNamespace',
  method: 'POST',
  path: '/v1/fleet/freeze',
  summary: 'Freeze a namespace: soft refuses new INTEND, DO and CALL; hard refuses every write after the grace window',
  description: 'Writes core.fleet.freeze.v1 on th_fleet_control as the caller. Freezing at the same soft level again writes nothing (changed: false); a hard freeze restarts its grace window.',
  tags: ['fleet'],
  auth: { scope: 'admin' },
  request: {
    body: Type.Object(
      {
        namespace: Namespace,
        level: Type.Optional(Type.Union([Type.Literal('soft'), Type.Literal('hard')], { default: 'soft' })),
        grace_secs: Type.Optional(Type.Integer({ minimum: 0, maximum: 86_400, description: 'Hard freezes: seconds before every write is refused. @default 60' })),
        reason: Reason,
      },
      { additionalProperties: false },
    ),
  },
  responses: { 200: { description: 'The record written, or changed: false.', schema: ControlOutcomeSchema } },
  errors: ['INVALID_SHAPE'],
  inject: { fleet: FleetServiceToken },
  handler: async ({ body, caller }, { fleet }) => outcome(await fleet.freeze(caller, { namespace: body.namespace, level: body.level ?? 'soft', grace_secs: body.grace_secs, reason: body.reason })),
});

export const thawNamespace = defineRoute({
  operationId: 'thawNamespace',
  method: 'POST',
  path: '/v1/fleet/thaw',
  summary: 'Lift the freeze of a namespace (the counter-record)',
  tags: ['fleet'],
  auth: { scope: 'admin' },
  request: { body: Type.Object({ namespace: Namespace, reason: Reason }, { additionalProperties: false }) },
  responses: { 200: { description: 'The record written, or changed: false when the namespace was not frozen.', schema: ControlOutcomeSchema } },
  errors: ['INVALID_SHAPE'],
  inject: { fleet: FleetServiceToken },
  handler: async ({ body, caller }, { fleet }) => outcome(await fleet.thaw(caller, body)),
});

export const setEmergencyStop = defineRoute({
  operationId: 'setEmergencyStop',
  method: 'POST',
  path: '/v1/fleet/emergency',
  summary: 'Engage (active: true) or clear (active: false) the emergency stop: the dispatch dial at 0 everywhere',
  tags: ['fleet'],
  auth: { scope: 'admin' },
  request: { body: Type.Object({ active: Type.Boolean(), reason: Reason }, { additionalProperties: false }) },
  responses: { 200: { description: 'The record written, or changed: false when already in that state.', schema: ControlOutcomeSchema } },
  errors: ['INVALID_SHAPE'],
  inject: { fleet: FleetServiceToken },
  handler: async ({ body, caller }, { fleet }) => outcome(await fleet.emergency(caller, body)),
});

export const FLEET_ROUTES = [getFleetStatus, freezeNamespace, thawNamespace, setEmergencyStop] as const;
