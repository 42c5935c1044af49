/**
 * The priced model catalog (spec §4.15 `models[]`): what `work_loop.model`
 * may name, and what a run's spend is computed from. A shipped default
 * (the current Anthropic and OpenAI models at their list prices as of 2026-11,
 * and local Ollama models at zero cost), which the `models` configuration
 * topic extends or overrides per id; an entry with `retired: true` removes
 * a model. Anything else is MODEL_UNKNOWN.
 */
import { Type } from 'typebox';
import type { Config } from '../../core/folds/config/config-topic.js';
import { defineConfigTopic } from '../../core/folds/config/config-topic.js';

export interface PricedModel {
  readonly id: string;
  readonly provider: 'anthropic' | 'openai' | 'ollama';
  /** USD per million input tokens. */
  readonly input_usd_per_mtok: number;
  /** USD per million output tokens. */
  readonly output_usd_per_mtok: number;
  readonly context_window: number;
}

export const DEFAULT_MODELS: readonly PricedModel[] = [
  { id: 'claude-opus-4-6', provider: 'anthropic', input_usd_per_mtok: 5, output_usd_per_mtok: 25, context_window: 200_000 },
  { id: 'claude-sonnet-4-6', provider: 'anthropic', input_usd_per_mtok: 3, output_usd_per_mtok: 15, context_window: 200_000 },
  { id: 'claude-haiku-4-5', provider: 'anthropic', input_usd_per_mtok: 1, output_usd_per_mtok: 5, context_window: 200_000 },
  { id: 'gpt-5', provider: 'openai', input_usd_per_mtok: 1.25, output_usd_per_mtok: 10, context_window: 400_000 },
  { id: 'gpt-5-mini', provider: 'openai', input_usd_per_mtok: 0.25, output_usd_per_mtok: 2, context_window: 400_000 },
  { id: 'gpt-4.1', provider: 'openai', input_usd_per_mtok: 2, output_usd_per_mtok: 8, context_window: 1_047_576 },
  { id: 'llama3.1', provider: 'ollama', input_usd_per_mtok: 0, output_usd_per_mtok: 0, context_window: 128_000 },
  { id: 'qwen2.5', provider: 'ollama', input_usd_per_mtok: 0, output_usd_per_mtok: 0, context_window: 32_768 },
];

export const modelsTopic = defineConfigTopic({
  topic: 'models',
  description:
    'The priced model catalog members may run on, by id: provider (anthropic, openai, ollama), input_usd_per_mtok and output_usd_per_mtok (USD per million tokens), context_window; retired: true removes a model. Extends the shipped default catalog.',
  schema: Type.Object(
    {
      id: Type.String({ minLength: 1, maxLength: 200, pattern: '^[A-Za-z0-9._:/-]+$' }),
      provider: Type.Optional(Type.Union([Type.Literal('anthropic'), Type.Literal('openai'), Type.Literal('ollama')])),
      input_usd_per_mtok: Type.Optional(Type.Number({ minimum: 0, maximum: 10_000 })),
      output_usd_per_mtok: Type.Optional(Type.Number({ minimum: 0, maximum: 10_000 })),
      context_window: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000_000 })),
      retired: Type.Optional(Type.Boolean()),
    },
    { additionalProperties: false },
  ),
  keyedBy: 'id',
  normalise: (fields) => {
    if (fields.retired === true) return { ...fields, retired: true };
    if (fields.provider === undefined || fields.input_usd_per_mtok === undefined || fields.output_usd_per_mtok === undefined || fields.context_window === undefined) {
      return 'a model needs provider, input_usd_per_mtok, output_usd_per_mtok and context_window (or retired: true)';
    }
    return fields;
  },
});

export class ModelCatalog {
  constructor(private readonly config: Config) {}

  list(): PricedModel[] {
    const byId = new Map(DEFAULT_MODELS.map((model) => [model.id, model]));
    for (const [id, entry] of Object.entries(this.config.keyed(modelsTopic))) {
      if (entry.retired === true) byId.delete(id);
      else byId.set(id, { id, provider: entry.provider!, input_usd_per_mtok: entry.input_usd_per_mtok!, output_usd_per_mtok: entry.output_usd_per_mtok!, context_window: entry.context_window! });
    }
    return [...byId.values()].sort((a, b) => (a.provider === b.provider ? (a.id < b.id ? -1 : 1) : a.provider < b.provider ? -1 : 1));
  }

  get(id: string): PricedModel | undefined {
    return this.list().find((model) => model.id === id);
  }
}
