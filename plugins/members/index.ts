/**
 * The members plugin: member actors defined as records (spec §3, §4.7,
 * §4.15). A definition and every later version is a record on
 * th_actor_registry (one fold answers the roster, history and workspace);
 * the doors check the whole request under the caller's bounds before the
 * first write. Other plugins contribute the tools members may be given
 * (ToolRegistryToken); the `models` and `actor_tier` configuration topics
 * are the priced catalog and the tiers.
 */
import { resolve, bindValue } from '../../core/di/token.js';
import { Config } from '../../core/folds/config/config-topic.js';
import { IngestorToken } from '../../core/engine/ingest.js';
import { LogCriticalSectionToken } from '../../core/engine/log-critical-section.js';
import { RecordReaderToken } from '../../core/engine/record-reader.js';
import { RecordWriterToken } from '../../core/engine/record-writer.js';
import { definePlugin } from '../../core/plugin/plugin.js';
import { ServerInfo } from '../../core/server/server-info.js';
import { TrustServiceToken } from '../trust/index.js';
import { DelegationPolicyToken } from '../auth/index.js';
import { MemberBoundsToken, type BoundsDeps } from './definition-bounds.js';
import { optionalService } from './optional-service.js';
import { memberRegistryFold } from './member-registry-fold.js';
import { MemberService, MemberServiceToken } from './member-service.js';
import { MemberTrustToken, type MemberTrust } from './member-trust.js';
import { ModelCatalog, modelsTopic } from './model-catalog.js';
import { ModelCatalogToken } from './model-catalog-token.js';
import { registryGate, retiredMemberGate } from './registry-gate.js';
import { defineActor } from './routes/define-actor.js';
import { getActorDefinition } from './routes/get-actor-definition.js';
import { getActorRoster } from './routes/get-actor-roster.js';
import { getSelfWorkspace } from './routes/get-self-workspace.js';
import { listActorHistory } from './routes/list-actor-history.js';
import { patchActorDefinition } from './routes/patch-actor-definition.js';
import { retireActor } from './routes/retire-actor.js';
import { revertActorDefinition } from './routes/revert-actor-definition.js';
import { actorTierTopic, tierTopic } from './tiers.js';
import { registerEvals } from './evals/register-evals.js';
import { ToolRegistry, ToolRegistryToken } from './tool-registry.js';
// ---- Blueprints ----
import { BlueprintService, BlueprintServiceToken } from './blueprints/blueprint-service.js';
import { blueprintRegistryFold } from './blueprints/blueprint-registry-fold.js';
import { blueprintSignersTopic, blueprintsAllowUnsignedTopic } from './blueprints/blueprint-trust.js';
import { materializeBlueprint } from './routes/materialize-blueprint.js';
// ---- end Blueprints ----
import { registerMemory } from './memory/register-memory.js';
// ---- runs ----
import { registerRuns } from './runs/register-runs.js';
export { RUNS_ROUTES } from './runs/register-runs.js';
export { RunServiceToken, RunScanCeilingToken, RUN_SCAN_CEILING, type RunService } from './runs/run-service.js';
export { type RunRow, RunRowSchema, RunAskSchema, DecisionOptionSchema, askOf, type RunAsk } from './runs/run-row.js';
export { RunThreadParams, ActorDidParams } from './runs/schemas.js';
export { type RunEntry, type RunIndexState, type OpenAsk } from './evals/run-index-fold.js';
export { MemberRunsIndexToken } from './evals/run-index-token.js';
// ---- end runs ----

export { ToolRegistryToken, type ToolRegistry, type ToolDescriptor, type ToolContext, type RunToolContext, type DirectToolContext } from './tool-registry.js';
export { MemberServiceToken, type MemberService } from './member-service.js';
export { ModelCatalogToken } from './model-catalog-token.js';
export { type PricedModel, DEFAULT_MODELS, modelsTopic } from './model-catalog.js';
export { TIER_CAPS, actorTierTopic, tierCaps, tierOf, tierTopic, type Tier, type TierCaps } from './tiers.js';
export { memberDid } from './member-did.js';
export { KIND_DEFINITION, KIND_PROMPT, WorkLoopSchema, definitionFields, promptRecordId, type DefinitionBody, type DefinitionFields, type WorkLoop } from './definition.js';
export { MemberBoundsToken, checkDefinition, isBounded, type BoundsDeps } from './definition-bounds.js';
export { isOperator } from './memory/memory-access.js';
export { ModelCatalog } from './model-catalog.js';
export { MEMBER_REGISTRY_FOLD, type MemberEntry, type MemberRegistryState } from './member-registry-fold.js';
export { MEMORY_ROUTES } from './memory/register-memory.js';
export { KIND_MEMORY, MEMORY_TYPES, type MemoryType } from './memory/memory.js';
export { MEMBER_MEMORY_FOLD } from './memory/memory-fold.js';
export { BUNDLE_VERSION, type MemberBundle } from './memory/bundle.js';

// --- evals (issue 32, "Evals"): suites, structure scores, grades; the run-record vocabulary the work loop writes ---
export { EVALS_ROUTES } from './evals/register-evals.js';
export { EvalServiceToken, type EvalService } from './evals/eval-service.js';
export { SubstanceGraderToken, type SubstanceGrader, type SubstanceInput } from './evals/substance-grader.js';
export * from './evals/run-records.js';
export { KIND_SUITE, type SuiteBody, type EvalCase } from './evals/suite.js';
export { KIND_GRADE, SCAN_CEILING, evalsThreadId, type GradeBody } from './evals/grade.js';
export { MEMBER_RUNS_FOLD } from './evals/run-index-fold.js';
export { MEMBER_GRADES_FOLD } from './evals/grade-fold.js';
// --- end evals ---

export const MEMBERS_ROUTES = [defineActor, getActorDefinition, patchActorDefinition, listActorHistory, revertActorDefinition, retireActor, getActorRoster, getSelfWorkspace] as const;

export const membersPlugin = definePlugin({
  name: 'members',
  tags: { members: 'Member actors: definitions with versions, the roster, and the models they run on.' },
  version: '1.0.0',
  dependencies: ['ledger'],
  optionalDependencies: ['trust', 'auth', 'federation'],
  register(scope) {
    const tools = new ToolRegistry();
    scope.expose(ToolRegistryToken, tools);
    scope.configTopic(modelsTopic);
    scope.configTopic(actorTierTopic);
    scope.configTopic(tierTopic);
    const config = resolve(scope.container, Config);
    const models = new ModelCatalog(config);
    scope.expose(ModelCatalogToken, models);
    const registry = scope.fold(memberRegistryFold);
    const ingestor = resolve(scope.container, IngestorToken);
    const delegation = optionalService(scope.container, DelegationPolicyToken);
    const bounds: BoundsDeps = {
      reader: resolve(scope.container, RecordReaderToken),
      tools,
      models,
      config,
      threadNamespace: (thread) => ingestor.threadNamespace(thread),
      delegationRefusal: (caller) => delegation()?.refusal(caller) ?? null,
    };
    scope.expose(MemberBoundsToken, bounds);
    const instanceDid = resolve(scope.container, ServerInfo).instanceDid;
    const members = new MemberService({
      ...bounds,
      writer: resolve(scope.container, RecordWriterToken),
      sections: resolve(scope.container, LogCriticalSectionToken),
      instanceDid,
      registry,
    });
    scope.expose(MemberServiceToken, members);
    scope.ingestGate(registryGate);
    scope.ingestGate(retiredMemberGate((did) => registry.state().members.get(did)?.current.retired === true));
    const trust = optionalService(scope.container, TrustServiceToken);
    const memberTrust: MemberTrust = { byDomain: async (caller, actor) => trust()?.byDomain(caller, actor) ?? {} };
    bindValue(scope.container, MemberTrustToken, memberTrust);
    for (const route of MEMBERS_ROUTES) scope.route(route);
    // ---- Blueprints: POST /v1/blueprints/materialize (blueprints/) ----
    scope.configTopic(blueprintSignersTopic);
    scope.configTopic(blueprintsAllowUnsignedTopic);
    const blueprints = new BlueprintService({
      ...bounds,
      members,
      blueprints: scope.fold(blueprintRegistryFold),
      instanceDid,
    });
    // Exposed (not only bound here): the work plugin's decisions install an approved proposal through it (issue 34).
    scope.expose(BlueprintServiceToken, blueprints);
    for (const route of BLUEPRINT_ROUTES) scope.route(route);
    scope.capability('members.blueprints', true);
    // ---- end Blueprints ----
    scope.capability('members.define', true);
    scope.capability('members.history', true);
    scope.capability('members.roster', true);
    // --- evals ---
    registerEvals(scope, { members, tools });
    // --- end evals ---
    // ---- memory and export / import (plugins/members/memory/) ----
    registerMemory(scope, members);
    // ---- runs, read side (plugins/members/runs/): GET /v1/runs*, /v1/actors/{did}/runs, /v1/actors/{did}/usage; after registerEvals ----
    registerRuns(scope, members);
    // ---- end runs ----
  },
});

// ---- Blueprints ----
export { BlueprintServiceToken, type BlueprintService } from './blueprints/blueprint-service.js';
export { KIND_BLUEPRINT, BLUEPRINT_VERSION, type Blueprint } from './blueprints/blueprint-format.js';
export { blueprintSignersTopic, blueprintsAllowUnsignedTopic } from './blueprints/blueprint-trust.js';
export { signBlueprint, checkSignature, sourceHash } from './blueprints/blueprint-signature.js';
export const BLUEPRINT_ROUTES = [materializeBlueprint] as const;
// ---- end Blueprints ----

// ---- decisions (issue 34): what the work plugin's decisions need from members ----
export { BlueprintSchema, type MaterializeRequest } from './blueprints/blueprint-format.js';
export { type BlueprintAnswer } from './blueprints/blueprint-service.js';
// ---- end decisions ----
