/**
 * The chat proxy pays like a run: the output clamp, the daily cost cap
 * (spend reserved before the call, the proxy's and the runs' together) and
 * the daily count, each refused as an Anthropic-shaped 429 carrying the
 * work code, before anything is written or forwarded.
 */
import Anthropic from '@anthropic-ai/sdk';
import { expect } from 'chai';
import { VENDORS } from '../fakes/provider-harness.js';
import { script } from '../fakes/script.js';
import { loopWorld, MODEL_OF, type LoopWorld } from '../work/loop-harness.js';

const anthropic = VENDORS.find((v) => v.provider === 'anthropic')!;

describe('chat proxy: tier clamp and daily caps', function () {
  this.timeout(60_000);
  let world: LoopWorld;
  let client: Anthropic;
  before(async () => {
    world = await loopWorld(anthropic, { work: { maxOutputTokens: 128 } });
    client = new Anthropic({ baseURL: `${world.server.url}/v1/proxy`, authToken: world.owner.token, apiKey: null, maxRetries: 0, logLevel: 'off' });
  });
  after(async () => world?.stop());
  const ask = (max_tokens = 4096) => ({ model: MODEL_OF['anthropic']!, max_tokens, messages: [{ role: 'user' as const, content: 'hello' }] });
  const setTrial = async (fields: Record<string, unknown>) => expect((await world.call('POST', '/v1/config/tier', world.admin, { tier: 'trial', ...fields })).status).to.equal(201);

  it('clamps max_tokens to the instance\'s output ceiling and records both numbers', async () => {
    world.fake.enqueue(script.text('ok'));
    const { response } = await client.messages.create(ask()).withResponse();
    expect(world.fake.requests.at(-1)!.body.max_tokens).to.equal(128);
    const [req] = await world.records(response.headers.get('x-loom-thread')!);
    expect(req.body).to.include({ max_tokens: 4096, max_tokens_sent: 128, tier: 'trial' });
  });

  it('a daily cost cap that leaves too little refuses with 429 WORK_DAILY_CAP_EXCEEDED, no retry advised, nothing written or forwarded', async () => {
    await setTrial({ daily_cost_cap_usd: 0.0001 });
    const before = await world.server.loom.engine.store.watermark();
    const asked = world.fake.requests.length;
    const error = (await client.messages.create(ask()).catch((e: unknown) => e)) as any;
    expect(error).to.be.instanceOf(Anthropic.RateLimitError);
    expect(error.error).to.deep.include({ type: 'error', object: 'error', code: 'WORK_DAILY_CAP_EXCEEDED' });
    expect(error.error.error.type).to.equal('rate_limit_error');
    expect(error.headers.get('x-should-retry')).to.equal('false');
    expect(await world.server.loom.engine.store.watermark()).to.equal(before);
    expect(world.fake.requests.length).to.equal(asked);
    await setTrial({ daily_cost_cap_usd: null });
  });

  it('proxied spend counts against the runs\' daily cap: a work loop start is refused once the proxy spent the day\'s cap', async () => {
    world.fake.enqueue(script.text('priced'));
    const { response } = await client.messages.create(ask()).withResponse();
    const records = await world.records(response.headers.get('x-loom-thread')!);
    const cost = records.find((r) => r.body.kind === 'core.work.proxy_response.v1')!.body.cost_usd as number;
    expect(cost).to.be.greaterThan(0);
    await setTrial({ daily_cost_cap_usd: cost / 2 });
    const before = await world.server.loom.engine.store.watermark();
    const started = await world.call('POST', '/v1/work/loop', world.owner, { goal: 'one more thing', model: MODEL_OF['anthropic'] });
    expect(started.status).to.equal(429);
    expect(started.json.code).to.equal('WORK_DAILY_CAP_EXCEEDED');
    expect(await world.server.loom.engine.store.watermark()).to.equal(before);
    await setTrial({ daily_cost_cap_usd: null });
  });

  it('the daily count (daily loops × turns) refuses the next exchange with 429 WORK_DAILY_COUNT_EXCEEDED', async () => {
    // The answered exchanges above count (the refused ones wrote nothing); the cap becomes 1 × 1.
    await setTrial({ daily_loop_cap: 1, max_turns: 1 });
    const before = await world.server.loom.engine.store.watermark();
    const error = (await client.messages.create(ask()).catch((e: unknown) => e)) as any;
    expect(error.status).to.equal(429);
    expect(error.error.code).to.equal('WORK_DAILY_COUNT_EXCEEDED');
    expect(await world.server.loom.engine.store.watermark()).to.equal(before);
  });
});
