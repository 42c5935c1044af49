/**
 * `embedding_provider` (spec §2.9, owned by the search plugin):
 * `{provider: {kind: "ollama", endpoint?, model?}}` turns semantic search on;
 * `{provider: null}` turns it off. Latest record wins; a change applies at
 * once (hot reload). Vectors are kept per model: changing the model leaves
 * the old model's vectors on disk, unused, until it is chosen again.
 */
import { Type } from 'typebox';
import { defineConfigTopic } from '../../core/folds/config/config-topic.js';

export const PROVIDER_KIND = 'ollama';
export const DEFAULT_ENDPOINT = 'http://localhost:11434';
/** nomic-embed-text: Ollama's most pulled text-embedding model (137M parameters, 768 dimensions, 8k-token context). */
export const DEFAULT_MODEL = 'nomic-embed-text';

export interface EmbeddingProvider {
  readonly kind: typeof PROVIDER_KIND;
  readonly endpoint: string;
  readonly model: string;
}

export const embeddingProviderTopic = defineConfigTopic({
  topic: 'embedding_provider',
  description: `The embedding server semantic search uses: {provider: {kind: "${PROVIDER_KIND}", endpoint (default ${DEFAULT_ENDPOINT}), model (default ${DEFAULT_MODEL})}}, or {provider: null} to turn it off.`,
  keyedBy: 'single',
  schema: Type.Object(
    {
      provider: Type.Union([
        Type.Object(
          {
            kind: Type.Literal(PROVIDER_KIND, { description: 'A local embedding server speaking the Ollama HTTP API (POST /api/embed).' }),
            endpoint: Type.Optional(Type.String({ minLength: 1, maxLength: 2048, pattern: '^https?://' })),
            model: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
          },
          { additionalProperties: false },
        ),
        Type.Null(),
      ]),
    },
    { additionalProperties: false },
  ),
  normalise: (fields): { provider: EmbeddingProvider | null } | string => {
    if (fields.provider === null) return { provider: null };
    const endpoint = fields.provider.endpoint ?? DEFAULT_ENDPOINT;
    try {
      new URL(endpoint);
    } catch {
      return `provider.endpoint ${JSON.stringify(endpoint)} is not a URL`;
    }
    return { provider: { kind: PROVIDER_KIND, endpoint, model: fields.provider.model ?? DEFAULT_MODEL } };
  },
});
