import { expect } from 'chai';
import type { ModelDelta, ModelTurn } from '../providers/index.js';
import { AnthropicWire, sseFrame, wireStopReason } from './anthropic-wire.js';

const turn = (over: Partial<ModelTurn> = {}): ModelTurn => ({
  text: 'Hi there',
  toolCalls: [],
  stopReason: 'end_turn',
  rawStopReason: 'end_turn',
  usage: { inputTokens: 15, outputTokens: 4, cacheReadTokens: 3, cacheWriteTokens: 2 },
  model: 'm-1',
  requestId: null,
  ...over,
});

const start: ModelDelta = { type: 'start', model: 'm-1', inputTokens: 10, cacheReadTokens: 3, cacheWriteTokens: 2 };

/** What the SDK's MessageStream would add the events up to (its own algorithm, reduced to text and tool_use). */
function accumulate(events: ReturnType<AnthropicWire['delta']>): any {
  let message: any = null;
  const json: string[] = [];
  for (const { data } of events) {
    const e = data as any;
    if (e.type === 'message_start') message = structuredClone(e.message);
    else if (e.type === 'content_block_start') message.content.push({ ...e.content_block });
    else if (e.type === 'content_block_delta' && e.delta.type === 'text_delta') message.content[e.index].text += e.delta.text;
    else if (e.type === 'content_block_delta' && e.delta.type === 'input_json_delta') json[e.index] = (json[e.index] ?? '') + e.delta.partial_json;
    else if (e.type === 'content_block_stop' && json[e.index] !== undefined) message.content[e.index].input = JSON.parse(json[e.index]!);
    else if (e.type === 'message_delta') {
      message.stop_reason = e.delta.stop_reason;
      message.stop_sequence = e.delta.stop_sequence;
      message.stop_details = e.delta.stop_details;
      Object.assign(message.usage, e.usage);
    }
  }
  return message;
}

describe('AnthropicWire: a turn in Anthropic\'s wire format', () => {
  it('a text turn: events in the documented order, ping after the first block start, usage cumulative and cache-aware', () => {
    const wire = new AnthropicWire('msg_1', 'fallback', 'anthropic');
    const events = [...wire.delta(start), ...wire.delta({ type: 'text', text: 'Hi ' }), ...wire.delta({ type: 'text', text: 'there' }), ...wire.finish(turn())];
    expect(events.map((e) => e.event)).to.deep.equal(['message_start', 'content_block_start', 'ping', 'content_block_delta', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop']);
    for (const e of events) expect(e.data['type']).to.equal(e.event);
    expect(events.at(-2)!.data['usage']).to.deep.equal({ input_tokens: 10, cache_creation_input_tokens: 2, cache_read_input_tokens: 3, output_tokens: 4 });
    expect(accumulate(events)).to.deep.equal(wire.message());
    expect(wire.message()).to.include({ id: 'msg_1', model: 'm-1', stop_reason: 'end_turn' });
  });

  it('text, then tool calls: each a block, input_json_delta fragments, the JSON input the turn parsed', () => {
    const wire = new AnthropicWire('msg_2', 'fallback', 'openai');
    const deltas: ModelDelta[] = [
      { ...start, inputTokens: null },
      { type: 'text', text: 'Checking.' },
      { type: 'tool_call', index: 0, id: 'call_a', name: 'f' },
      { type: 'tool_input', index: 0, json: '{"x"' },
      { type: 'tool_input', index: 0, json: ':1}' },
      { type: 'tool_call', index: 1, id: 'call_b', name: 'g' },
      { type: 'tool_input', index: 1, json: '{}' },
    ];
    const events = deltas.flatMap((d) => wire.delta(d));
    events.push(...wire.finish(turn({ text: 'Checking.', toolCalls: [{ id: 'call_a', name: 'f', input: { x: 1 } }, { id: 'call_b', name: 'g', input: {} }], stopReason: 'tool_use', rawStopReason: 'tool_calls' })));
    expect(events.filter((e) => e.event === 'content_block_start').map((e) => (e.data['content_block'] as any).type)).to.deep.equal(['text', 'tool_use', 'tool_use']);
    expect(wire.message().stop_reason).to.equal('tool_use');
    expect(wire.message().content).to.deep.equal([
      { type: 'text', text: 'Checking.', citations: null },
      { type: 'tool_use', id: 'call_a', name: 'f', input: { x: 1 } },
      { type: 'tool_use', id: 'call_b', name: 'g', input: {} },
    ]);
    expect(accumulate(events)).to.deep.equal(wire.message());
  });

  it('nothing before start; a refusal the adapter did not stream still lands as text', () => {
    const wire = new AnthropicWire('msg_3', 'fallback', 'openai');
    expect(wire.delta({ type: 'text', text: 'early' })).to.deep.equal([]);
    wire.delta(start);
    const events = wire.finish(turn({ text: 'I cannot help with that.', stopReason: 'refusal', rawStopReason: 'content_filter' }));
    expect(events.map((e) => e.event)).to.include('content_block_delta');
    expect(wire.message().content).to.deep.equal([{ type: 'text', text: 'I cannot help with that.', citations: null }]);
    expect(wire.message().stop_reason).to.equal('refusal');
  });

  it('stop reasons: an Anthropic provider\'s own value passes through, the others map from the normalized reason', () => {
    expect(wireStopReason('anthropic', turn({ rawStopReason: 'pause_turn', stopReason: 'other' }))).to.equal('pause_turn');
    expect(wireStopReason('anthropic', turn({ rawStopReason: 'stop_sequence' }))).to.equal('stop_sequence');
    expect(wireStopReason('openai', turn({ rawStopReason: 'length', stopReason: 'max_tokens' }))).to.equal('max_tokens');
    expect(wireStopReason('ollama', turn({ rawStopReason: 'weird', stopReason: 'other' }))).to.equal('end_turn');
    const wire = new AnthropicWire('msg_4', 'm', 'anthropic');
    wire.delta(start);
    wire.finish(turn({ rawStopReason: 'stop_sequence', stopSequence: 'END' }));
    expect(wire.message()).to.include({ stop_reason: 'stop_sequence', stop_sequence: 'END' });
  });

  it('frames carry the event: line and the JSON data line', () => {
    expect(sseFrame({ event: 'ping', data: { type: 'ping' } })).to.equal('event: ping\ndata: {"type":"ping"}\n\n');
  });
});
