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
import { TrustServiceToken, type TrustService } from '../trust/index.js';
import { memberRegistryFold } from './member-registry-fold.js';
import { MemberService, MemberServiceToken } from './member-service.js';
import { MemberTrustToken, type MemberTrust } from './member-trust.js';
import { ModelCatalog, modelsTopic } from './model-catalog.js';
import { ModelCatalogToken } from './model-catalog-token.js';
import { registryGate, retiredMemberGate } from './registry-gate.js';
import { defineActor } from './routes/define-actor.js';
import { getActorRoster } from './routes/get-actor-roster.js';
import { getSelfWorkspace } from './routes/get-self-workspace.js';
import { listActorHistory } from './routes/list-actor-history.js';
import { patchActorDefinition } from './routes/patch-actor-definition.js';
import { retireActor } from './routes/retire-actor.js';
import { revertActorDefinition } from './routes/revert-actor-definition.js';
import { actorTierTopic } from './tiers.js';
import { ToolRegistry, ToolRegistryToken } from './tool-registry.js';
import { registerMemory } from './memory/register-memory.js';

export { ToolRegistryToken, type ToolRegistry, type ToolDescriptor } from './tool-registry.js';
export { MemberServiceToken, type MemberService } from './member-service.js';
export { ModelCatalogToken } from './model-catalog-token.js';
export { type PricedModel, DEFAULT_MODELS, modelsTopic } from './model-catalog.js';
export { TIER_CAPS, actorTierTopic, tierOf, type Tier, type TierCaps } from './tiers.js';
export { memberDid } from './member-did.js';
export { KIND_DEFINITION, KIND_PROMPT, type DefinitionBody, type DefinitionFields } from './definition.js';
export { MEMBER_REGISTRY_FOLD, type MemberEntry, type MemberRegistryState } from './member-registry-fold.js';
export { MEMORY_ROUTES } from './memory/register-memory.js';
export { KIND_MEMORY, MEMORY_TYPES, type MemoryType } from './memory/memory.js';
export { MEMBER_MEMORY_FOLD } from './memory/memory-fold.js';
export { BUNDLE_VERSION, type MemberBundle } from './memory/bundle.js';

export const MEMBERS_ROUTES = [defineActor, patchActorDefinition, listActorHistory, revertActorDefinition, retireActor, getActorRoster, getSelfWorkspace] as const;

export const membersPlugin = definePlugin({
  name: 'members',
  tags: { members: 'Member actors: definitions with versions, the roster, and the models they run on.' },
  version: '1.0.0',
  dependencies: ['ledger'],
  optionalDependencies: ['trust'],
  register(scope) {
    const tools = new ToolRegistry();
    scope.expose(ToolRegistryToken, tools);
    scope.configTopic(modelsTopic);
    scope.configTopic(actorTierTopic);
    const config = resolve(scope.container, Config);
    const models = new ModelCatalog(config);
    bindValue(scope.container, ModelCatalogToken, models);
    const registry = scope.fold(memberRegistryFold);
    const ingestor = resolve(scope.container, IngestorToken);
    const members = new MemberService({
      reader: resolve(scope.container, RecordReaderToken),
      writer: resolve(scope.container, RecordWriterToken),
      sections: resolve(scope.container, LogCriticalSectionToken),
      instanceDid: resolve(scope.container, ServerInfo).instanceDid,
      registry,
      tools,
      models,
      config,
      threadNamespace: (thread) => ingestor.threadNamespace(thread),
    });
    scope.expose(MemberServiceToken, members);
    scope.ingestGate(registryGate);
    scope.ingestGate(retiredMemberGate((did) => registry.state().members.get(did)?.current.retired === true));
    // Trust is optional: looked up on first use (every plugin has registered by then).
    let trust: TrustService | null | undefined;
    const memberTrust: MemberTrust = {
      byDomain: async (caller, actor) => {
        if (trust === undefined) trust = scope.container.isRegistered(TrustServiceToken, true) ? resolve(scope.container, TrustServiceToken) : null;
        return trust ? trust.byDomain(caller, actor) : {};
      },
    };
    bindValue(scope.container, MemberTrustToken, memberTrust);
    for (const route of MEMBERS_ROUTES) scope.route(route);
    scope.capability('members.define', true);
    scope.capability('members.history', true);
    scope.capability('members.roster', true);
    // ---- memory and export / import (plugins/members/memory/) ----
    registerMemory(scope, members);
  },
});
