/**
 * A plugin that adds one fold and one route:
 * - `word_count`, a per-thread fold counting the words of every string in record bodies;
 * - `GET /v1/word-count/{thread}`, which answers from that fold.
 * It depends on the ledger plugin and takes one option. The route reads the
 * fold through the record reader with the caller, like every read: a caller
 * restricted to some records gets the count over those records only.
 * Never inject the fold engine or the store into a route (the route-coverage
 * test refuses it): that would answer around the read policies.
 */
import { Type } from 'typebox';
import { RecordReaderToken, definePlugin, defineRoute, isThreadId, LoomError, type Fold, type JsonValue, token, bindValue } from '../../core/index.js';

interface WordCount {
  records: number;
  words: number;
}

function countWords(value: JsonValue, minLength: number): number {
  if (typeof value === 'string') return value.split(/\s+/).filter((w) => w.length >= minLength).length;
  if (Array.isArray(value)) return value.reduce<number>((n, v) => n + countWords(v, minLength), 0);
  if (value && typeof value === 'object') return Object.values(value).reduce<number>((n, v) => n + countWords(v, minLength), 0);
  return 0;
}

export function wordCountFold(minLength: number): Fold<WordCount, WordCount> {
  return {
    name: 'word_count',
    scope: 'thread',
    description: `Words (at least ${minLength} characters) in the bodies of a thread's records.`,
    initial: () => ({ records: 0, words: 0 }),
    apply: (state, { record }) => ({ records: state.records + 1, words: state.words + countWords(record.body, minLength) }),
    value: (state) => ({ ...state }),
  };
}

const Options = Type.Object({ minLength: Type.Integer({ minimum: 1, default: 1 }) }, { additionalProperties: false });
const OptionsToken = token<{ minLength: number }>('word-count.Options');

export const getWordCount = defineRoute({
  operationId: 'getWordCount',
  method: 'GET',
  path: '/v1/word-count/{thread}',
  summary: 'Words written on a thread',
  tags: ['word-count'],
  auth: { scope: 'records:read' },
  request: { params: Type.Object({ thread: Type.String({ maxLength: 80 }) }) },
  responses: {
    200: {
      description: 'The count.',
      schema: Type.Object({ thread: Type.String(), records: Type.Integer(), words: Type.Integer(), min_length: Type.Integer(), watermark: Type.Integer() }),
    },
  },
  errors: ['INVALID_SHAPE'],
  inject: { reader: RecordReaderToken, options: OptionsToken },
  handler: async ({ params, caller }, { reader, options }) => {
    if (!isThreadId(params.thread)) throw new LoomError('INVALID_SHAPE', 'params.thread: not a thread id');
    const answer = await reader.threadFold<WordCount>(caller, 'word_count', params.thread);
    return { thread: params.thread, ...answer.value, min_length: options.minLength, watermark: answer.watermark };
  },
});

export const wordCountPlugin = definePlugin({
  name: 'word-count',
  version: '1.0.0',
  dependencies: ['ledger'],
  options: Options,
  register(scope, options) {
    bindValue(scope.container, OptionsToken, options);
    scope.fold(wordCountFold(options.minLength));
    scope.route(getWordCount);
    scope.capability('word_count', true);
  },
});
