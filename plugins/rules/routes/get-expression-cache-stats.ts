import { Type } from 'typebox';
import { defineRoute } from '../../../core/plugin/route.js';
import { ExpressionCacheToken } from '../cel/expression-cache.js';

const Counter = Type.Integer({ minimum: 0 });

export const getExpressionCacheStats = defineRoute({
  operationId: 'getExpressionCacheStats',
  method: 'GET',
  path: '/v1/engine/expression_cache/stats',
  summary: 'The CEL expression cache: hits, misses, compile errors, hit rate, mean compile time, size and capacity',
  tags: ['engine'],
  auth: { scope: 'config:read' },
  responses: {
    200: {
      description: 'Since start.',
      schema: Type.Object(
        { hits: Counter, misses: Counter, compile_errors: Counter, hit_rate_pct: Type.Number(), avg_compile_micros: Type.Number(), size: Counter, capacity: Counter },
        { $id: 'ExpressionCacheStats' },
      ),
    },
  },
  errors: [],
  inject: { cache: ExpressionCacheToken },
  handler: (_input, { cache }) => cache.stats(),
});
