import { expect } from 'chai';
import { LoomError } from '../../../core/errors/loom-error.js';
import { parseProxyRequest } from './proxy-request.js';

const base = { model: 'claude-haiku-4-5', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] };
const refusal = (body: unknown): string => {
  try {
    parseProxyRequest(body);
  } catch (error) {
    expect(error).to.be.instanceOf(LoomError);
    expect((error as LoomError).code).to.equal('INVALID_SHAPE');
    return (error as LoomError).message;
  }
  throw new Error('accepted');
};

describe('parseProxyRequest: an Anthropic Messages request into the neutral request', () => {
  it('translates system blocks, tool_use and tool_result turns, tools, tool_choice and sampling', () => {
    const parsed = parseProxyRequest({
      ...base,
      system: [{ type: 'text', text: 'A' }, { type: 'text', text: 'B' }],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'q1' }, { type: 'text', text: 'q2' }] },
        { role: 'assistant', content: [{ type: 'text', text: 'let me' }, { type: 'tool_use', id: 't1', name: 'f', input: { a: 1 } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: 'r' }], is_error: true }, { type: 'text', text: 'and?' }] },
      ],
      tools: [{ name: 'f', input_schema: { type: 'object' } }],
      tool_choice: { type: 'tool', name: 'f', disable_parallel_tool_use: true },
      stop_sequences: ['END'],
      temperature: 0.5,
      metadata: { user_id: 'u' },
      stream: true,
      top_k: 5,
      service_tier: 'auto',
    });
    expect(parsed.system).to.equal('A\n\nB');
    expect(parsed.messages).to.deep.equal([
      { role: 'user', text: 'q1\n\nq2' },
      { role: 'assistant', text: 'let me', toolCalls: [{ id: 't1', name: 'f', input: { a: 1 } }] },
      { role: 'tool_results', results: [{ callId: 't1', content: 'r', isError: true }] },
      { role: 'user', text: 'and?' },
    ]);
    expect(parsed.tools).to.deep.equal([{ name: 'f', description: '', inputSchema: { type: 'object' } }]);
    expect(parsed.options).to.deep.equal({ temperature: 0.5, stopSequences: ['END'], toolChoice: { type: 'tool', name: 'f', disableParallelToolUse: true } });
    expect(parsed.stream).to.equal(true);
    expect(parsed.ignored).to.deep.equal(['top_k', 'service_tier']);
  });

  it('refuses what the API refuses, naming the path', () => {
    expect(refusal({ ...base, model: '' })).to.match(/^model:/);
    expect(refusal({ ...base, max_tokens: 0 })).to.match(/^max_tokens:/);
    expect(refusal({ ...base, messages: [] })).to.match(/^messages:/);
    expect(refusal({ ...base, messages: [{ role: 'assistant', content: 'x' }] })).to.match(/^messages\.0\.role/);
    expect(refusal({ ...base, messages: [{ role: 'user', content: 'a' }, { role: 'assistant', content: [{ type: 'tool_use', id: 't', name: 'f', input: {} }] }, { role: 'user', content: 'b' }] })).to.match(/tool_use.*t$/);
    expect(refusal({ ...base, tools: [{ name: 'bad name', input_schema: { type: 'object' } }] })).to.match(/^tools\.0\.name/);
    expect(refusal({ ...base, tools: [{ type: 'web_search_20250305', name: 'web_search' }] })).to.match(/^tools\.0\.type/);
    expect(refusal({ ...base, tool_choice: { type: 'tool', name: 'nope' } })).to.match(/^tool_choice\.name/);
    expect(refusal({ ...base, temperature: 2 })).to.match(/^temperature/);
    expect(refusal({ ...base, messages: [{ role: 'user', content: [{ type: 'image', source: {} }] }] })).to.match(/image blocks are not relayed/);
    expect(refusal({ ...base, thinking: { type: 'enabled', budget_tokens: 1024 } })).to.match(/^thinking/);
    expect(() => parseProxyRequest({ ...base, thinking: { type: 'disabled' } })).to.not.throw();
  });
});
