/**
 * Route catalogue → OpenAPI 3.1. The catalogue is the only input: what is
 * mounted is what is documented. Route schemas are JSON Schema, which 3.1
 * embeds as is; `$id` schemas become named components (components.ts).
 * Output is deterministic (catalogue order for paths, status order for
 * responses, name order for components), so the drift test is meaningful.
 */
import {
  OpenApiBuilder,
  type OpenAPIObject,
  type OperationObject,
  type ParameterLocation,
  type ParameterObject,
  type ReferenceObject,
  type ResponsesObject,
  type SchemaObject,
} from 'openapi3-ts/oas31';
import Value from 'typebox/value';
import { errorStatus, type ErrorCode } from '../core/errors/codes.js';
import type { AnyRouteDecl, CapabilityScheme, RawBodySpec } from '../core/plugin/route.js';
import type { RouteCatalog } from '../core/plugin/route-catalog.js';
import { ComponentRegistry, ERROR_ENVELOPE_REF } from './components.js';

export interface OpenApiInfo {
  /** The package version; must be stable for the committed document. */
  readonly version: string;
}

export const OPENAPI_VERSION = '3.1.0';
export const BEARER_SCHEME = 'bearer';

const DESCRIPTION =
  'Loom, a coordination ledger: append-only, content-addressed records grouped in threads, with folds computed over them. ' +
  'Every refusal is an ErrorEnvelope `{object: "error", code, message}`; the codes each operation may return are listed on its error responses.';

/** Bytes, as OpenAPI 3.1 spells them for generators that still read `format` (hey-api maps it to Blob). */
const BINARY: SchemaObject = { type: 'string', format: 'binary' };

function byNumber(a: number, b: number): number {
  return a - b;
}

function parameters(route: AnyRouteDecl, components: ComponentRegistry): ParameterObject[] {
  const out: ParameterObject[] = [];
  const parts: Array<[ParameterLocation, unknown]> = [
    ['path', route.request?.params],
    ['query', route.request?.query],
    ['header', route.request?.headers],
  ];
  for (const [location, schema] of parts) {
    if (!schema) continue;
    const { properties = {}, required = [] } = JSON.parse(JSON.stringify(schema)) as { properties?: Record<string, { description?: string }>; required?: string[] };
    for (const [name, { description, ...property }] of Object.entries(properties)) {
      out.push({
        name,
        in: location,
        // OpenAPI requires path parameters to be required.
        required: location === 'path' || required.includes(name),
        // The description belongs to the parameter (the SDK's JSDoc reads it there).
        ...(description ? { description } : {}),
        schema: components.schema(property),
      });
    }
  }
  // A `{param}` of the path without a declared schema is still a parameter.
  for (const [, name] of route.path.matchAll(/\{([^}]+)\}/g)) {
    if (!out.some((p) => p.in === 'path' && p.name === name)) out.push({ name: name!, in: 'path', required: true, schema: { type: 'string' } });
  }
  return out;
}

/** The OpenAPI security requirement of a route's declared auth. */
export function securityOf(route: AnyRouteDecl): Array<Record<string, string[]>> {
  if (route.auth === 'none') return [];
  if (route.auth === 'optional') return [{}, { [BEARER_SCHEME]: [] }];
  // A capability in the URL (a signed read URL) stands in for the bearer.
  if (route.auth.orCapability) return [{ [BEARER_SCHEME]: route.auth.scope === null ? [] : [route.auth.scope] }, { [route.auth.orCapability.name]: [] }];
  return [{ [BEARER_SCHEME]: route.auth.scope === null ? [] : [route.auth.scope] }];
}

function responses(route: AnyRouteDecl, components: ComponentRegistry, catalog: RouteCatalog): ResponsesObject {
  const out: ResponsesObject = {};
  for (const status of Object.keys(route.responses).map(Number).sort(byNumber)) {
    const spec = route.responses[status]!;
    const contentType = spec.contentType ?? 'application/json';
    const media = spec.binary ? { schema: BINARY } : spec.schema ? { schema: components.schema(spec.schema) } : {};
    // A response without a body (304) has no content.
    out[String(status)] = spec.binary || spec.schema || spec.contentType ? { description: spec.description, content: { [contentType]: media } } : { description: spec.description };
  }
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of [...route.errors, ...catalog.authErrors(route)]) {
    const codes = byStatus.get(errorStatus(code)) ?? [];
    if (!codes.includes(code)) codes.push(code);
    byStatus.set(errorStatus(code), codes);
  }
  for (const status of [...byStatus.keys()].sort(byNumber)) {
    if (out[String(status)]) throw new Error(`${route.operationId}: error status ${status} collides with a declared success response`);
    const codes = byStatus.get(status)!;
    const envelope: ReferenceObject = { $ref: ERROR_ENVELOPE_REF };
    out[String(status)] = { description: `Error envelope; code is one of: ${codes.join(', ')}.`, content: { 'application/json': { schema: envelope } } };
  }
  // Anything else (INTERNAL, SERVICE_UNAVAILABLE, NOT_FOUND for an unknown path, METHOD_NOT_ALLOWED) is still the envelope.
  out['default'] = { description: 'Error envelope (INTERNAL, SERVICE_UNAVAILABLE, and any other refusal).', content: { 'application/json': { schema: { $ref: ERROR_ENVELOPE_REF } } } };
  return out;
}

function operation(route: AnyRouteDecl, components: ComponentRegistry, catalog: RouteCatalog): OperationObject {
  const params = parameters(route, components);
  const body = route.request?.body;
  const raw: RawBodySpec | undefined = route.request?.raw;
  return {
    operationId: route.operationId,
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    tags: [...route.tags],
    security: securityOf(route),
    ...(params.length ? { parameters: params } : {}),
    // A body whose fields are all optional may be left out (DELETE … with an optional {note}).
    ...(body
      ? {
          requestBody: {
            required: !Value.Check(body, {}),
            content: {
              'application/json': { schema: components.schema(body) },
              // NDJSON: the same array, one item per line.
              ...(route.ndjson ? { 'application/x-ndjson': { schema: components.schema(body) } } : {}),
            },
          },
        }
      : {}),
    ...(raw ? { requestBody: { required: true, description: raw.description, content: Object.fromEntries((raw.contentTypes ?? ['application/octet-stream']).map((type) => [type, { schema: BINARY }])) } } : {}),
    responses: responses(route, components, catalog),
  };
}

export function buildOpenApi(catalog: RouteCatalog, info: OpenApiInfo): OpenAPIObject {
  const components = new ComponentRegistry();
  const entries = catalog.all();
  const tags = [...new Set(entries.flatMap(({ route }) => route.tags))].sort();
  // Key order of the document is fixed here; the builder fills the sections in.
  const builder = OpenApiBuilder.create({
    openapi: OPENAPI_VERSION,
    info: { title: 'Loom', version: info.version, description: DESCRIPTION, license: { name: 'Apache-2.0', identifier: 'Apache-2.0' } },
    // Where `loom serve` listens by default; clients pass their own base URL.
    servers: [{ url: 'http://127.0.0.1:9100', description: 'loom serve on this machine (the default port)' }],
    tags: tags.map((name) => {
      const description = catalog.tagDescription(name);
      return description ? { name, description } : { name };
    }),
    paths: {},
    components: { schemas: {}, securitySchemes: {} },
  });
  for (const { route } of entries) builder.addPath(route.path, { [route.method.toLowerCase()]: operation(route, components, catalog) });
  for (const [name, schema] of components.sorted()) builder.addSchema(name, schema as SchemaObject);
  const capabilities = new Map<string, CapabilityScheme>();
  for (const { route } of entries) if (typeof route.auth === 'object' && route.auth.orCapability) capabilities.set(route.auth.orCapability.name, route.auth.orCapability);
  for (const [name, scheme] of [...capabilities].sort(([a], [b]) => (a < b ? -1 : 1))) {
    builder.addSecurityScheme(name, { type: 'apiKey', in: 'query', name: scheme.query, description: scheme.description });
  }
  builder.addSecurityScheme(BEARER_SCHEME, {
    type: 'http',
    scheme: 'bearer',
    description:
      'A service-account bearer `loom_<env>_<sa_id>_<secret>`: `Authorization: Bearer <token>`. The scope an operation lists is the one it needs (admin covers all; ' +
      'thread/namespace grains pass records:read or records:write for their own threads or namespaces only). Send `X-Service-Actor: <did>` to act as one of the ' +
      "account's allowed actors. While the instance does not require auth, a request without a bearer runs with every scope.",
  });
  return builder.getSpec();
}
