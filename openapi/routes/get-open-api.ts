import type { OpenAPIObject } from 'openapi3-ts/oas31';
import { Type } from 'typebox';
import { defineRoute } from '../../core/plugin/route.js';
import { RouteCatalogToken, type RouteCatalog } from '../../core/plugin/route-catalog.js';
import { ServerInfo } from '../../core/server/server-info.js';
import { buildOpenApi } from '../build-spec.js';

// One document per composed server, built on first request: by then every plugin has declared its routes.
const documents = new WeakMap<RouteCatalog, OpenAPIObject>();

export const getOpenApi = defineRoute({
  operationId: 'getOpenApi',
  method: 'GET',
  path: '/openapi.json',
  summary: 'The OpenAPI 3.1 document of this instance',
  description: 'Built from the route catalogue of the running server, so it lists exactly the operations its plugins declare (this one included).',
  tags: ['openapi'],
  auth: 'none',
  responses: {
    200: { description: 'The OpenAPI document.', schema: Type.Unsafe<OpenAPIObject>({ type: 'object', additionalProperties: true, description: 'An OpenAPI 3.1 document.' }) },
  },
  errors: [],
  inject: { catalog: RouteCatalogToken, info: ServerInfo },
  handler: (_input, { catalog, info }) => {
    let document = documents.get(catalog);
    if (!document) documents.set(catalog, (document = buildOpenApi(catalog, info)));
    return document;
  },
});
