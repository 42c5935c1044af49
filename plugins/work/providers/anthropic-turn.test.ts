import { expect } from 'chai';
import { AnthropicTurn } from './anthropic-turn.js';
import { MalformedStreamError } from './malformed-stream.js';

const start = { type: 'message_start', message: { id: 'm', type: 'message', role: 'assistant', model: 'c', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 1, cache_read_input_tokens: 5, cache_creation_input_tokens: 2 } } } as any;
const delta = (output: number) => ({ type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: output } }) as any;
const stop = { type: 'message_stop' } as any;

describe('AnthropicTurn', () => {
  it('holds the stream to the documented order', () => {
    expect(() => new AnthropicTurn().add(delta(1))).to.throw(MalformedStreamError);
    const twice = new AnthropicTurn();
    twice.add(start);
    expect(() => twice.add(start)).to.throw(MalformedStreamError);
    const after = new AnthropicTurn();
    after.add(start);
    after.add(stop);
    expect(() => after.add(delta(1))).to.throw(MalformedStreamError);
    const open = new AnthropicTurn();
    open.add(start);
    expect(() => open.finish(null)).to.throw(MalformedStreamError);
    const orphan = new AnthropicTurn();
    orphan.add(start);
    expect(() => orphan.add({ type: 'content_block_delta', index: 3, delta: { type: 'text_delta', text: 'x' } } as any)).to.throw(MalformedStreamError);
  });

  it('message_delta usage replaces, never adds; cached input counts as input', () => {
    const turn = new AnthropicTurn();
    for (const event of [start, delta(5), delta(9), stop]) turn.add(event);
    expect(turn.finish('r').usage).to.deep.equal({ inputTokens: 17, outputTokens: 9, cacheReadTokens: 5, cacheWriteTokens: 2 });
  });
});
