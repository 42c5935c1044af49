/**
 * Decisions (issue 34; spec §2.7, §3, §4.9): the work plugin's part, in one
 * place. `decisionHooks` is what the run driver asks when a call may need a
 * person (the tier's `approve_destructive`, a blueprint proposal's plan);
 * `registerDecisions` adds the gate that keeps decision records the
 * engine's, the `propose_blueprint` tool, the service and its doors, and
 * the capabilities manifest's `conventions.decisions_path`.
 */
import { Compile } from 'typebox/compile';
import { resolve } from '../../../core/di/token.js';
import type { Clock } from '../../../core/engine/clock.js';
import type { LogCriticalSection } from '../../../core/engine/log-critical-section.js';
import type { RecordReader } from '../../../core/engine/record-reader.js';
import type { RecordWriter } from '../../../core/engine/record-writer.js';
import { LoomError } from '../../../core/errors/loom-error.js';
import type { Config } from '../../../core/folds/config/config-topic.js';
import type { PluginScope } from '../../../core/plugin/plugin-scope.js';
import type { OwnFold } from '../../../core/plugin/own-fold.js';
import type { JsonObject } from '../../../core/records/json.js';
import { BlueprintServiceToken, tierCaps, tierOf, type BlueprintService, type MemberService, type RunIndexState, type Tier, type ToolRegistry } from '../../members/index.js';
import type { DriverDecisions } from '../loop/run-driver.js';
import { APPROVE_REJECT } from './choice.js';
import { decisionGate } from './decision-gate.js';
import { proposeBlueprintTool, ProposeInputSchema, type ProposeInput } from './decision-request.js';
import { DecisionService } from './decision-service.js';
import { DecisionServiceToken } from './decision-token.js';
import { decideDecision } from './routes/decide-decision.js';
import { listDecisions } from './routes/list-decisions.js';

export const DECISION_ROUTES = [listDecisions, decideDecision] as const;
export const DECISIONS_PATH = '/v1/decisions';

const TIERS: readonly string[] = ['trial', 'paid', 'team', 'operator'];
const proposeCheck = Compile(ProposeInputSchema);

function blueprintsOf(scope: PluginScope): BlueprintService | null {
  return scope.container.isRegistered(BlueprintServiceToken, true) ? resolve(scope.container, BlueprintServiceToken) : null;
}

export function decisionHooks(scope: PluginScope, deps: { config: Config; members: MemberService }): DriverDecisions {
  return {
    approveDestructive(opening, actor) {
      // The tier the run started at (the opening says it); the cap is read live, so an operator's edit applies to the next call.
      const tier = (typeof opening['tier'] === 'string' && TIERS.includes(opening['tier']) ? opening['tier'] : tierOf(deps.config, actor)) as Tier;
      return tierCaps(deps.config, tier).approve_destructive;
    },
    async proposal(actor, input) {
      const owner = deps.members.entry(actor)?.current.owner;
      const blueprints = blueprintsOf(scope);
      if (!owner || !blueprints) return { invalid: 'only a defined member proposes a blueprint, on an instance that installs blueprints', code: 'FORBIDDEN' };
      if (!proposeCheck.Check(input)) {
        const first = [...proposeCheck.Errors(input)][0] as { instancePath?: string; message?: string } | undefined;
        return { invalid: `the input does not match propose_blueprint's schema${first ? `: ${first.instancePath || '/'} ${first.message ?? ''}`.trimEnd() : ''}`, code: 'INPUT_INVALID' };
      }
      const proposal = input as unknown as ProposeInput;
      try {
        const plan = await blueprints.proposalPlan(owner, actor, { blueprint: proposal.blueprint as never, ...(proposal.extends ? { extends: proposal.extends } : {}) });
        const labels = plan.members.map((m) => `${m.label} (${m.change})`).join(', ');
        return {
          about: 'blueprint_proposal',
          question: `Install blueprint ${plan.name} as proposed: ${labels}?`,
          options: [
            { ...APPROVE_REJECT[0]!, description: `Install it as you, within your grant: ${plan.records.length} records.` },
            { ...APPROVE_REJECT[1]!, description: 'Install nothing; the member reads your reason.' },
          ],
          allow_other: false,
          multi: false,
          proposal_kind: 'blueprint',
          plan_hash: plan.plan_hash,
          ...(proposal.why ? { reason: proposal.why } : {}),
          extra: { plan: { name: plan.name, owner, records: plan.records.length, members: plan.members.map((m) => ({ ...m })) } as unknown as JsonObject },
        };
      } catch (error) {
        if (error instanceof LoomError) return { invalid: error.message, code: error.code };
        throw error;
      }
    },
  };
}

export interface DecisionsDeps {
  readonly reader: RecordReader;
  readonly writer: RecordWriter;
  readonly sections: LogCriticalSection;
  readonly members: MemberService;
  readonly index: OwnFold<RunIndexState>;
  readonly tools: ToolRegistry;
  readonly clock: Clock;
}

export function registerDecisions(scope: PluginScope, deps: DecisionsDeps): DecisionService {
  scope.ingestGate(decisionGate);
  deps.tools.add(proposeBlueprintTool());
  const service = new DecisionService({
    reader: deps.reader,
    writer: deps.writer,
    sections: deps.sections,
    members: deps.members,
    runs: () => deps.index.state(),
    blueprints: blueprintsOf(scope),
    clock: deps.clock,
  });
  scope.expose(DecisionServiceToken, service);
  for (const route of DECISION_ROUTES) scope.route(route);
  scope.describe('manifest', 'conventions.decisions_path', () => DECISIONS_PATH);
  scope.capability('work.decisions', true);
  return service;
}
