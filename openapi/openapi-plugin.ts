/**
 * The openapi plugin: serves the OpenAPI document built from the route
 * catalogue at GET /openapi.json. Always loaded by the reference server.
 */
import { definePlugin } from '../core/plugin/plugin.js';
import { getOpenApi } from './routes/get-open-api.js';

export const openapiPlugin = definePlugin({
  name: 'openapi',
  tags: {
    openapi: 'This OpenAPI document.',
  },
  version: '1.0.0',
  register(scope) {
    scope.route(getOpenApi);
  },
});
