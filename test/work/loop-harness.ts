/**
 * A real Loom server with the work plugin wired to one provider fake, a
 * member defined on it, and helpers to start a run and wait for its end:
 * what the loop tests share, on every vendor (test/fakes/provider-harness.ts).
 */
import { expect } from 'chai';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PluginRegistration } from '../../core/plugin/plugin.js';
import type { ReferenceLoomOptions } from '../../server/reference-loom.js';
import type { FakeProvider } from '../fakes/fake-server.js';
import type { VendorUnderTest } from '../fakes/provider-harness.js';
import { bearer, bootstrapAdmin, createAccount, type Credential } from '../helpers/auth.js';
import { request, startServer, type HttpAnswer, type StartedServer } from '../helpers/http-server.js';
import { memberToolsPlugin, TOOL_FAIL, TOOL_FETCH, TOOL_READ, TOOL_WRITE } from '../members/member-tools-plugin.js';

/** A priced catalog model per vendor (the shipped defaults), so spend is real money on paper. */
export const MODEL_OF: Record<string, string> = { anthropic: 'claude-haiku-4-5', openai: 'gpt-5-mini', ollama: 'llama3.1' };

/** Retries without waiting, so fault tests take milliseconds. */
export const FAST_RETRY = { maxAttempts: 3, baseDelayMs: 5, maxDelayMs: 20, maxRetryAfterMs: 5_000 };

export interface LoopWorld {
  server: StartedServer;
  fake: FakeProvider;
  admin: Credential;
  owner: Credential;
  member: string;
  dataDir: string;
  call(method: string, path: string, who?: Credential, json?: unknown): Promise<HttpAnswer>;
  /** Starts a run as the member; answers the run thread. */
  run(body: Record<string, unknown>, who?: Credential): Promise<string>;
  /** Polls the run row until its state is not `running`. */
  ended(thread: string, timeoutMs?: number): Promise<any>;
  records(thread: string): Promise<any[]>;
  restart(extra?: Partial<ReferenceLoomOptions>): Promise<void>;
  stop(): Promise<void>;
}

export interface WorldOptions {
  readonly storage?: 'sqlite' | 'level';
  readonly work?: Record<string, unknown>;
  readonly memberLoop?: Record<string, unknown>;
  readonly plugins?: readonly PluginRegistration[];
  readonly clock?: () => number;
  readonly dataDir?: string;
}

export async function loopWorld(vendor: VendorUnderTest, options: WorldOptions = {}): Promise<LoopWorld> {
  const fake = await vendor.startFake();
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'loom-loop-')));
  const serverOptions = (): ReferenceLoomOptions & { keepDataDir: boolean } => ({
    storage: options.storage ?? 'sqlite',
    dataDir,
    keepDataDir: true,
    durability: 'normal',
    auth: { required: true },
    plugins: [memberToolsPlugin, ...(options.plugins ?? [])],
    ...(options.clock ? { clock: options.clock } : {}),
    work: { providers: [vendor.config(fake) as never], retry: FAST_RETRY, ...(options.work ?? {}) },
  });
  const world = { fake, dataDir } as LoopWorld;
  world.server = await startServer(serverOptions());
  world.call = (method, path, who = world.owner, json) => request(world.server.url, method, path, { headers: bearer(who), ...(json === undefined ? {} : { json }) });
  world.admin = await bootstrapAdmin(world.server.url);
  world.owner = await createAccount(world.server.url, world.admin, 'owner', ['records:read', 'records:write']);
  const defined = await world.call('POST', '/v1/actors/define', world.owner, {
    label: 'Worker',
    work_loop: { model: MODEL_OF[vendor.provider], tools: [TOOL_READ, TOOL_WRITE], max_turns: 10, budget_usd: 5, ...(options.memberLoop ?? {}) },
  });
  expect(defined.status, defined.text).to.equal(201);
  world.member = defined.json.actor_did;
  world.run = async (body, who = world.owner) => {
    const answer = await world.call('POST', `/v1/actors/${encodeURIComponent(world.member)}/runs`, who, body);
    expect(answer.status, answer.text).to.equal(201);
    return answer.json.thread;
  };
  world.ended = async (thread, timeoutMs = 15_000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const answer = await world.call('GET', `/v1/runs/${thread}`, world.admin);
      expect(answer.status, answer.text).to.equal(200);
      if (answer.json.state !== 'running') return answer.json;
      if (Date.now() > deadline) throw new Error(`run ${thread} still running after ${timeoutMs} ms: ${answer.text}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  world.records = async (thread) => {
    const answer = await world.call('GET', `/v1/threads/${thread}/records?limit=1000`, world.admin);
    expect(answer.status, answer.text).to.equal(200);
    return answer.json.data;
  };
  world.restart = async (extra = {}) => {
    await world.server.stop();
    world.server = await startServer({ ...serverOptions(), ...extra });
  };
  world.stop = async () => {
    await world.server.stop();
    await fake.close();
  };
  return world;
}

export { TOOL_FAIL, TOOL_FETCH, TOOL_READ, TOOL_WRITE };
