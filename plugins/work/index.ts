/**
 * The work plugin: members doing work (spec §1 work loops, §3 run states,
 * §4.8, §4.15 run doors, §6). A run is a thread; the run engine drives each
 * one through a model provider (providers/), one record per turn, tool call,
 * tool result and outcome, under the ceilings of tier, member and request,
 * and resumes runs a stopped server left `running` from their threads.
 * Loom's own tools (tools/) are contributed to the members plugin's tool
 * registry, so define and patch accept them and the loop can run them.
 */
import { Type, type Static } from 'typebox';
import { SYSTEM } from '../../core/access/caller.js';
import { resolve } from '../../core/di/token.js';
import { ClockToken } from '../../core/engine/clock.js';
import { LogCriticalSectionToken } from '../../core/engine/log-critical-section.js';
import { RecordReaderToken } from '../../core/engine/record-reader.js';
import { RecordWriterToken } from '../../core/engine/record-writer.js';
import { Config } from '../../core/folds/config/config-topic.js';
import { definePlugin } from '../../core/plugin/plugin.js';
import { MemberBoundsToken, MemberRunsIndexToken, MemberServiceToken, ModelCatalogToken, RunServiceToken, ToolRegistryToken, type RunEntry } from '../members/index.js';
import { DailySpend } from './loop/daily-spend.js';
import { RunControl } from './loop/run-control.js';
import { RunEngine } from './loop/run-engine.js';
import { RunStarter, type UsageToday } from './loop/run-starter.js';
import { configuredProviders, workProvidersTopic } from './provider-topic.js';
import { createModelProviders, DEFAULT_RETRY_POLICY, type ModelProviders, type ProviderConfig } from './providers/index.js';
import { cancelWorkLoop } from './routes/cancel-work-loop.js';
import { getRunEvents } from './routes/get-run-events.js';
import { getWorkLoop } from './routes/get-work-loop.js';
import { postRunEvent } from './routes/post-run-event.js';
import { previewWorkLoop } from './routes/preview-work-loop.js';
import { startMemberRun } from './routes/start-member-run.js';
import { startWorkLoop } from './routes/start-work-loop.js';
import { streamWorkLoop } from './routes/stream-work-loop.js';
import { RunControlToken, RunEngineToken, RunStarterToken } from './work-tokens.js';
import { registerLoomTools } from './tools/register-loom-tools.js';
import { isDrivenOpening, runOpeningGate } from './loop/run-opening-gate.js';
import { LocalRecordsToken } from '../federation/index.js';
import { AdapterRegistryToken } from '../rules/index.js';
import { memberRunAdapter } from './dispatch-adapter.js';
import { fanOutTools } from './loop/fan-out-tools.js';
// ---- compensation review (plugins/work/compensation/) ----
import { registerCompensation } from './compensation/register-compensation.js';
export { COMPENSATION_ROUTES } from './compensation/register-compensation.js';
export { COMPENSATION_FOLD } from './compensation/compensation-fold.js';
// ---- end compensation review ----
// ---- chat proxy (plugins/work/proxy/) ----
import { ChatProxy } from './proxy/chat-proxy.js';
import { ChatProxyToken, PROXY_ROUTES } from './proxy/proxy-routes.js';
import { ProxyUsage } from './proxy/proxy-usage.js';
export { PROXY_ROUTES } from './proxy/proxy-routes.js';
// ---- end chat proxy ----
// ---- decisions (issue 34: plugins/work/decisions/) ----
import { decisionHooks, registerDecisions } from './decisions/register-decisions.js';
export { DECISION_ROUTES, DECISIONS_PATH } from './decisions/register-decisions.js';
export { DecisionServiceToken } from './decisions/decision-token.js';
// ---- end decisions ----

export { RunControlToken, RunEngineToken, RunStarterToken } from './work-tokens.js';
export { workProvidersTopic } from './provider-topic.js';
export type { RunEngine } from './loop/run-engine.js';
export type { RunStarter } from './loop/run-starter.js';

export const WORK_ROUTES = [startMemberRun, startWorkLoop, previewWorkLoop, getWorkLoop, cancelWorkLoop, streamWorkLoop, postRunEvent, getRunEvents] as const;

const ProviderConfigSchema = Type.Object(
  {
    provider: Type.Union([Type.Literal('anthropic'), Type.Literal('openai'), Type.Literal('ollama')]),
    apiKey: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    baseUrl: Type.Optional(Type.String()),
    host: Type.Optional(Type.String()),
    idleTimeoutMs: Type.Optional(Type.Integer({ minimum: 1 })),
    maxTokensField: Type.Optional(Type.Union([Type.Literal('max_completion_tokens'), Type.Literal('max_tokens')])),
  },
  { additionalProperties: false },
);

export const WorkOptionsSchema = Type.Object(
  {
    /** Runs without an outcome on the log at once; one more start is 503 ADMISSION_CEILING. */
    maxConcurrentRuns: Type.Integer({ minimum: 1, maximum: 10_000, default: 16 }),
    /** Output ceiling of one model call when no budget is tighter. */
    maxOutputTokens: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 8_192 }),
    /** Providers given explicitly (an embedder, the tests); absent: the environment and the work_providers topic. */
    providers: Type.Optional(Type.Array(ProviderConfigSchema, { maxItems: 3 })),
    /** Loom's retry policy over provider calls. */
    retry: Type.Optional(Type.Object({ maxAttempts: Type.Integer({ minimum: 1, maximum: 10 }), baseDelayMs: Type.Integer({ minimum: 0 }), maxDelayMs: Type.Integer({ minimum: 0 }), maxRetryAfterMs: Type.Integer({ minimum: 0 }) })),
  },
  { additionalProperties: false },
);

export type WorkOptions = Static<typeof WorkOptionsSchema>;

const DAY_MS = 86_400_000;

/** Runs the member started in the UTC day from `dayStart`, and their spend (the outcome's account, else the turns so far). */
function usageOf(entries: readonly RunEntry[] | undefined, dayStart: number): UsageToday {
  let loops = 0;
  let cost = 0;
  for (let i = (entries?.length ?? 0) - 1; i >= 0; i--) {
    const entry = entries![i]!;
    if (entry.startedAt === null || entry.startedAt < dayStart) break;
    if (entry.startedAt >= dayStart + DAY_MS) continue;
    loops++;
    cost += entry.turnCostUsd;
  }
  return { loop_count: loops, cost_usd: cost };
}

export const workPlugin = definePlugin({
  name: 'work',
  version: '1.0.0',
  tags: { work: 'Work loops and runs: members doing work through model providers, under ceilings, as records on the run thread.' },
  dependencies: ['ledger', 'members'],
  optionalDependencies: ['auth', 'rules', 'search', 'trust', 'folds', 'data-plane', 'federation'],
  options: WorkOptionsSchema,
  register(scope, options) {
    const tools = resolve(scope.container, ToolRegistryToken);
    registerLoomTools(scope, tools);
    const config = resolve(scope.container, Config);
    const reader = resolve(scope.container, RecordReaderToken);
    const writer = resolve(scope.container, RecordWriterToken);
    const clock = resolve(scope.container, ClockToken);
    const models = resolve(scope.container, ModelCatalogToken);
    const members = resolve(scope.container, MemberServiceToken);
    const index = resolve(scope.container, MemberRunsIndexToken);
    scope.configTopic(workProvidersTopic);
    scope.ingestGate(runOpeningGate);
    if (scope.container.isRegistered(LocalRecordsToken, true)) resolve(scope.container, LocalRecordsToken).keep('work.run-openings', isDrivenOpening);

    // Providers: given explicitly, or the environment and the topic (rebuilt when either changes what they configure).
    const retry = options.retry ?? DEFAULT_RETRY_POLICY;
    let built: { key: string; providers: ModelProviders } | null = null;
    const providers = (): ModelProviders => {
      const configs = (options.providers as ProviderConfig[] | undefined) ?? configuredProviders(process.env, config);
      const key = JSON.stringify(configs);
      if (built?.key !== key) built = { key, providers: createModelProviders(configs, retry) };
      return built.providers;
    };

    const dayStart = () => {
      const now = clock();
      return now - (now % DAY_MS);
    };
    // A member's day of spend is its runs' and its proxied calls' together: one cap, one set of reservations.
    const proxyUsage = new ProxyUsage(clock);
    const usageToday = (actor: string) => {
      const runs = usageOf(index.state().byActor.get(actor), dayStart());
      return { ...runs, cost_usd: runs.cost_usd + proxyUsage.costToday(actor) };
    };
    const spend = new DailySpend((actor) => usageToday(actor).cost_usd);
    const decisions = decisionHooks(scope, { config, members }); // ---- decisions (issue 34) ----
    const engine = new RunEngine({
      decisions,
      reader,
      writer,
      providers,
      model: (id) => models.get(id),
      tools,
      spend,
      clock,
      log: scope.log,
      maxOutputTokens: options.maxOutputTokens,
      promptText: async (id) => {
        if (id === null) return null;
        const stored = await reader.get(SYSTEM, id);
        return typeof stored?.record.body['text'] === 'string' ? stored.record.body['text'] : null;
      },
      openRuns: () => index.state().order.filter((entry) => entry.outcome === null && entry.opening['grant'] !== undefined).map((entry) => ({ thread: entry.thread, startedAt: entry.startedAt, opening: entry.opening })),
      isOpen: (thread) => {
        const entry = index.state().runs.get(thread);
        return entry !== undefined && entry.outcome === null && entry.opening['grant'] !== undefined;
      },
      openRun: (thread) => {
        const entry = index.state().runs.get(thread);
        return entry !== undefined && entry.outcome === null && entry.opening['grant'] !== undefined ? { thread, startedAt: entry.startedAt, opening: entry.opening } : undefined;
      },
    });
    scope.expose(RunEngineToken, engine);
    scope.consume(engine.consumer());

    const starter = new RunStarter({
      members,
      tools,
      models,
      config,
      bounds: resolve(scope.container, MemberBoundsToken),
      providers,
      reader,
      writer,
      sections: resolve(scope.container, LogCriticalSectionToken),
      openRunCount: (actor) => {
        let open = 0;
        const entries = actor === undefined ? index.state().runs.values() : (index.state().byActor.get(actor) ?? []);
        for (const entry of entries) if (entry.outcome === null && entry.opening['grant'] !== undefined) open++;
        return open;
      },
      usageToday,
      maxConcurrentRuns: options.maxConcurrentRuns,
    });
    scope.expose(RunStarterToken, starter);
    // RECONCILE's dispatches to a member start a run of it (when the rules plugin is loaded).
    if (scope.container.isRegistered(AdapterRegistryToken, true)) resolve(scope.container, AdapterRegistryToken).register(memberRunAdapter(members, starter), 'work');
    const runService = resolve(scope.container, RunServiceToken);
    for (const tool of fanOutTools({ starter, engine, runs: runService, config, allRuns: () => index.state().order, run: (thread) => index.state().runs.get(thread) })) tools.add(tool);
    const control = new RunControl({ runs: runService, members, writer, engine, opening: (thread) => index.state().runs.get(thread)?.opening });
    scope.expose(RunControlToken, control);
    for (const route of WORK_ROUTES) scope.route(route);
    scope.corsHeaders(['last-event-id']);
    scope.describe('health', 'work', () => ({ driving: engine.driving, providers: providers().names() }));
    scope.capability('work.loop', true);
    scope.capability('work.runs', true);
    registerCompensation(scope); // ---- compensation review ----
    // ---- chat proxy (plugins/work/proxy/): Anthropic-API clients through Loom, paid like runs ----
    scope.consume(proxyUsage.consumer());
    scope.expose(ChatProxyToken, new ChatProxy({ writer, models, providers, spend: () => spend, usage: proxyUsage, usageToday, config, log: scope.log, maxOutputTokens: options.maxOutputTokens }));
    for (const route of PROXY_ROUTES) scope.route(route);
    scope.capability('work.proxy', true);
    // ---- end chat proxy ----
    // ---- decisions (issue 34) ----
    registerDecisions(scope, { reader, writer, sections: resolve(scope.container, LogCriticalSectionToken), members, index, tools, clock });
    // ---- end decisions ----
  },
});
