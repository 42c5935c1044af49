/**
 * The chat proxy (spec §4.10 POST /v1/proxy/messages): an Anthropic Messages
 * request in, one call to the provider of the model the catalog names
 * (through the work loop's adapters, so the model may be Anthropic's,
 * OpenAI's or an Ollama one), the answer out in Anthropic's wire format,
 * JSON or server-sent events relayed delta by delta as the provider sends
 * them. The caller pays like a run does: its tier's output clamp and daily
 * caps (spend shared with its runs, reserved before the call so concurrent
 * exchanges never both take the last cent), checked before anything is
 * written or forwarded. Each exchange leaves its records on a thread the
 * caller can read: a new one, or the one named by `x-loom-thread`.
 *
 * One attempt per call: the client's own retry policy (the Anthropic SDKs
 * retry 429, 529 and 5xx by retry-after) sees the provider's status, and a
 * stream that already reached the client is never replayed.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { PassThrough } from 'node:stream';
import { actingDid, type Caller } from '../../../core/access/caller.js';
import type { RecordWriter } from '../../../core/engine/record-writer.js';
import { LoomError } from '../../../core/errors/loom-error.js';
import type { Config } from '../../../core/folds/config/config-topic.js';
import { EVENT_STREAM_HEADERS } from '../../../core/plugin/event-stream.js';
import type { Logger } from '../../../core/plugin/logger.js';
import { Reply } from '../../../core/plugin/reply.js';
import type { JsonObject } from '../../../core/records/json.js';
import { taskThreadId } from '../../../core/records/thread-id.js';
import { isOperator, tierCaps, tierOf, type ModelCatalog, type PricedModel, type Tier } from '../../members/index.js';
import type { DailySpend, Reservation } from '../loop/daily-spend.js';
import { ProviderError, type ModelDelta, type ModelProviders, type ModelTurn } from '../providers/index.js';
import { AnthropicWire, PING, sseFrame, type WireEvent } from './anthropic-wire.js';
import { errorBody, fromLoomError, fromProviderError, type ProxyFailure } from './proxy-errors.js';
import { errorRecordBody, requestBody, responseBody } from './proxy-records.js';
import { modelRequest, parseProxyRequest, type ProxyRequest } from './proxy-request.js';
import type { ProxyUsage } from './proxy-usage.js';

/** The least output a call is made with (the loop's MIN_OUTPUT_TOKENS): a cap leaving less refuses the exchange. */
const MIN_OUTPUT_TOKENS = 64;
/** A ping when no event went out for this long, so idle proxies and load balancers keep a slow stream open. */
const KEEPALIVE_MS = 10_000;
const THREAD = /^th_[0-9a-f]{64}$/;

export interface ChatProxyDeps {
  readonly writer: RecordWriter;
  readonly models: ModelCatalog;
  readonly providers: () => ModelProviders;
  readonly spend: () => DailySpend;
  readonly usage: ProxyUsage;
  /** What the actor's runs spent and started today (the run index). */
  /** The actor's day of spend: its runs' and its proxied calls' (DailySpend counts the same). */
  readonly usageToday: (actor: string) => { cost_usd: number };
  readonly config: Config;
  readonly log: Logger;
  /** Output ceiling of one call when the tier leaves more (the work plugin's maxOutputTokens). */
  readonly maxOutputTokens: number;
}

export interface ProxyInput {
  readonly body: unknown;
  readonly headers: Readonly<Record<string, string | undefined>>;
  readonly caller: Caller;
  readonly signal: AbortSignal;
}

interface Plan {
  readonly actor: string;
  readonly request: ProxyRequest;
  readonly model: PricedModel;
  readonly tier: Tier;
  readonly thread: string;
  readonly reservation: Reservation;
  readonly estimatedInput: number;
}

const estimateTokens = (chars: number): number => Math.ceil(chars / 4);

/** An exchange's daily count cap: as many model calls as the tier's runs could make in a day (daily loops × turns per loop). */
export function dailyCallCap(caps: { daily_loop_cap: number | null; max_turns: number | null }): number | null {
  if (caps.daily_loop_cap === null) return null;
  return caps.daily_loop_cap * (caps.max_turns ?? 1);
}

export class ChatProxy {
  /** Exchanges under way per actor: counted against the daily count before they are recorded. */
  private readonly inFlight = new Map<string, number>();

  constructor(private readonly deps: ChatProxyDeps) {}

  async handle(input: ProxyInput): Promise<Reply> {
    let plan: Plan;
    try {
      plan = await this.plan(input);
    } catch (error) {
      if (error instanceof LoomError) return failureReply(fromLoomError(error), {});
      throw error;
    }
    this.inFlight.set(plan.actor, (this.inFlight.get(plan.actor) ?? 0) + 1);
    let settled = false;
    const settle = () => {
      if (settled) return;
      settled = true;
      plan.reservation.release();
      const left = (this.inFlight.get(plan.actor) ?? 1) - 1;
      if (left <= 0) this.inFlight.delete(plan.actor);
      else this.inFlight.set(plan.actor, left);
    };
    try {
      return await this.exchange(plan, input, settle);
    } catch (error) {
      settle();
      if (error instanceof LoomError) return failureReply(fromLoomError(error), { 'x-loom-thread': plan.thread });
      throw error;
    }
  }

  /** Everything that may refuse, before anything is written or forwarded; ends with the reservation held. */
  private async plan({ body, headers, caller, signal }: ProxyInput): Promise<Plan> {
    const request = parseProxyRequest(body);
    const named = headers['x-loom-thread'];
    if (named !== undefined && !THREAD.test(named)) throw new LoomError('INVALID_SHAPE', 'headers.x-loom-thread: must be a thread id (th_ and 64 hex digits) to continue, or absent for a new thread');
    const model = this.deps.models.get(request.model);
    if (!model) throw new LoomError('NOT_FOUND', `model: ${request.model} is not in this instance's priced catalog (GET /v1/models lists it)`);
    if (!this.deps.providers().single(model.provider)) throw new LoomError('WORK_NO_PROVIDER', `no ${model.provider} provider is configured on this instance for ${model.id}`);
    const actor = actingDid(caller);
    const tier: Tier = isOperator(caller) ? 'operator' : tierOf(this.deps.config, actor);
    const caps = tierCaps(this.deps.config, tier);
    const calls = dailyCallCap(caps);
    const made = this.deps.usage.countToday(actor) + (this.inFlight.get(actor) ?? 0);
    if (calls !== null && made >= calls) throw new LoomError('WORK_DAILY_COUNT_EXCEEDED', `${actor} has made ${made} proxied calls today; its tier allows ${calls} a day`);
    const cap = caps.daily_cost_cap_usd;
    const spent = this.deps.usageToday(actor).cost_usd;
    if (cap !== null && spent >= cap) throw new LoomError('WORK_DAILY_CAP_EXCEEDED', `${actor} has spent ${spent.toFixed(4)} USD today, its daily cap is ${cap} USD`);
    const estimatedInput = estimateTokens(JSON.stringify([request.system, request.messages, request.tools]).length);
    const inputUsd = (estimatedInput * model.input_usd_per_mtok) / 1_000_000;
    const outputTokensFor = (usd: number) => (model.output_usd_per_mtok > 0 ? Math.floor((usd * 1_000_000) / model.output_usd_per_mtok) : Number.POSITIVE_INFINITY);
    const wanted = Math.min(request.maxTokens, this.deps.maxOutputTokens);
    const least = Math.min(MIN_OUTPUT_TOKENS, wanted);
    // DailySpend counts runs' and proxied spend alike: the room is the cap less both and less every call in flight.
    const reservation = await this.deps.spend().reserve(
      actor,
      cap,
      (room) => {
        const tokens = room === null ? wanted : Math.min(wanted, outputTokensFor(room - inputUsd));
        return tokens < least ? null : { tokens, usd: inputUsd + (tokens * model.output_usd_per_mtok) / 1_000_000 };
      },
      signal,
    );
    if (!reservation) throw new LoomError('WORK_DAILY_CAP_EXCEEDED', `${actor}'s daily cap of ${cap} USD leaves too little for this call (spent ${spent.toFixed(4)} USD, the rest reserved by calls in flight)`);
    return { actor, request, model, tier, thread: named ?? taskThreadId(`proxy ${actor}`, randomUUID()), reservation, estimatedInput };
  }

  private async exchange(plan: Plan, input: ProxyInput, settle: () => void): Promise<Reply> {
    const began = performance.now();
    const { model, request } = plan;
    const written = await this.deps.writer.appendAs(input.caller, {
      thread: plan.thread,
      act: 'CALL',
      plugin: 'work',
      body: requestBody({ body: input.body as Record<string, unknown>, model, stream: request.stream, maxTokensSent: plan.reservation.tokens, ignored: request.ignored, tier: plan.tier }),
    });
    const requestId = written.stored.record.id;
    const headers = { 'x-loom-thread': plan.thread, 'request-id': requestId };
    // The message id names the request record it answers: one exchange, one id.
    const wire = new AnthropicWire(`msg_${requestId.slice(0, 24)}`, model.id, model.provider);
    const adapter = this.deps.providers().single(model.provider)!;
    const stream = request.stream ? new PassThrough() : null;
    let lastWrite = performance.now();
    const send = (events: readonly WireEvent[]) => {
      if (!stream || events.length === 0 || stream.destroyed) return;
      stream.write(events.map(sseFrame).join(''));
      lastWrite = performance.now();
    };
    let onStart: () => void = () => undefined;
    const started = new Promise<void>((resolve) => (onStart = resolve));
    const onDelta = (delta: ModelDelta) => {
      send(wire.delta(delta));
      if (delta.type === 'start') onStart();
    };
    const completion = adapter.complete(modelRequest(request, model.id, plan.reservation.tokens), { signal: input.signal, onDelta });
    const finishRecord = async (turn: ModelTurn): Promise<WireEvent[]> => {
      if (!wire.hasStarted) send(wire.delta({ type: 'start', model: turn.model, inputTokens: null, cacheReadTokens: null, cacheWriteTokens: null }));
      const closing = wire.finish(turn);
      const message = wire.message();
      const usage = turn.usage ?? { inputTokens: plan.estimatedInput, outputTokens: estimateTokens(turn.text.length + JSON.stringify(turn.toolCalls).length), cacheReadTokens: 0, cacheWriteTokens: 0 };
      const costUsd = (usage.inputTokens * model.input_usd_per_mtok + usage.outputTokens * model.output_usd_per_mtok) / 1_000_000;
      await this.record(input.caller, plan, 'DO', [requestId], responseBody({ message, model, costUsd, usageEstimated: turn.usage === null, upstreamRequestId: turn.requestId, durationMs: Math.round(performance.now() - began) }), costUsd);
      settle();
      return closing;
    };
    const failRecord = async (error: unknown, midStream: boolean): Promise<ProxyFailure> => {
      const providerError = error instanceof ProviderError ? error : new ProviderError(model.provider, 'client_error', error instanceof Error ? error.message : String(error));
      const failure: ProxyFailure = providerError.type === 'aborted' ? { status: 499, code: 'PROVIDER_FAILED', type: 'client_closed', message: 'the client closed the connection', headers: {} } : fromProviderError(providerError);
      await this.record(input.caller, plan, 'KNOW', [requestId], errorRecordBody({ failure, provider: model.provider, upstream: providerError.toJSON() as unknown as JsonObject, midStream, durationMs: Math.round(performance.now() - began) }), 0);
      settle();
      return failure;
    };

    if (!stream) {
      let turn: ModelTurn;
      try {
        turn = await completion;
      } catch (error) {
        return failureReply(await failRecord(error, false), headers);
      }
      await finishRecord(turn);
      return Reply.json(200, wire.message(), headers);
    }

    // Streamed: the status is the provider's until its first frame arrives; from then on the answer is ours, 200.
    const first = await Promise.race([started.then(() => null), completion.then(() => null, (error: unknown) => ({ error }))]);
    if (first !== null && !wire.hasStarted) return failureReply(await failRecord(first.error, false), headers);
    const keepalive = setInterval(() => {
      if (performance.now() - lastWrite >= KEEPALIVE_MS) send([PING]);
    }, KEEPALIVE_MS / 2);
    keepalive.unref();
    void completion
      .then(
        async (turn) => send(await finishRecord(turn)),
        async (error: unknown) => {
          const failure = await failRecord(error, true);
          if (!stream.destroyed) stream.write(`event: error\ndata: ${JSON.stringify(errorBody(failure))}\n\n`);
        },
      )
      .catch((error: unknown) => this.deps.log.log('error', 'chat proxy: ending a stream failed', { error: error instanceof Error ? error.message : String(error) }))
      .finally(() => {
        clearInterval(keepalive);
        settle();
        stream.end();
      });
    return Reply.stream(stream, { ...EVENT_STREAM_HEADERS, ...headers });
  }

  /** Writes an outcome record and counts it at once; a failed write is logged, never the client's error (it has its answer). */
  private async record(caller: Caller, plan: Plan, act: string, parents: string[], body: JsonObject, costUsd: number): Promise<void> {
    try {
      const { stored } = await this.deps.writer.appendAs(caller, { thread: plan.thread, act, plugin: 'work', body, parents });
      this.deps.usage.note(stored.record.id, plan.actor, stored.createdAt, costUsd);
    } catch (error) {
      this.deps.log.log('error', 'chat proxy: the outcome record was not written', { thread: plan.thread, kind: String(body['kind']), error: error instanceof Error ? error.message : String(error) });
    }
  }
}

function failureReply(failure: ProxyFailure, headers: Record<string, string>): Reply {
  return Reply.json(failure.status, errorBody(failure), { ...failure.headers, ...headers });
}
