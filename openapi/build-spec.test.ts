import { expect } from 'chai';
import { Type } from 'typebox';
import { defineRoute, type AnyRouteDecl } from '../core/plugin/route.js';
import { RouteCatalog } from '../core/plugin/route-catalog.js';
import { buildOpenApi } from './build-spec.js';

const Item = Type.Object({ name: Type.String(), tags: Type.Record(Type.String(), Type.Integer()) }, { $id: 'Item' });
const ItemList = Type.Object({ data: Type.Array(Item) }, { $id: 'ItemList' });

const putItem = defineRoute({
  operationId: 'putItem',
  method: 'PUT',
  path: '/v1/items/{id}',
  summary: 'Store an item',
  description: 'Longer text.',
  tags: ['items'],
  auth: { scope: 'records:write' },
  request: {
    params: Type.Object({ id: Type.String({ description: 'The item id.' }) }),
    query: Type.Object({ dry: Type.Optional(Type.Boolean()), mode: Type.String() }),
    body: Item,
  },
  responses: { 201: { description: 'Stored.', schema: Item } },
  errors: ['INVALID_SHAPE', 'AUTH_REQUIRED', 'MISSING_FIELD', 'DUPLICATE_CLOCK', 'INVALID_SHAPE'],
  inject: {},
  handler: () => ({}),
});

const listItems = defineRoute({
  operationId: 'listItems',
  method: 'GET',
  path: '/v1/items',
  summary: 'List items',
  tags: ['items'],
  auth: 'none',
  responses: { 200: { description: 'Items.', schema: ItemList }, 206: { description: 'As text.', contentType: 'text/plain' } },
  errors: [],
  inject: {},
  handler: () => ({}),
});

/** What a bearer authenticator like the auth plugin's declares it throws besides AUTH_REQUIRED. */
const AUTHENTICATOR_ERRORS = ['GRANT_REVOKED', 'GRANT_EXPIRED', 'DID_CLAIM_DENIED'] as const;

function catalogOf(...routes: AnyRouteDecl[]): RouteCatalog {
  const catalog = new RouteCatalog();
  for (const route of routes) catalog.add('test', route);
  catalog.declareAuthenticatorErrors(AUTHENTICATOR_ERRORS);
  return catalog;
}

describe('buildOpenApi', () => {
  const document = buildOpenApi(catalogOf(putItem, listItems), { version: '9.9.9' });
  const put = document.paths!['/v1/items/{id}']!.put!;
  const list = document.paths!['/v1/items']!.get!;

  it('writes an OpenAPI 3.1.0 header with the given version', () => {
    expect(document.openapi).to.equal('3.1.0');
    expect(document.info).to.include({ title: 'Loom', version: '9.9.9' });
    expect(document.tags).to.deep.equal([{ name: 'items' }]);
  });

  it('copies the operation fields and maps auth to security', () => {
    expect(put).to.include({ operationId: 'putItem', summary: 'Store an item', description: 'Longer text.' });
    expect(put.tags).to.deep.equal(['items']);
    expect(put.security).to.deep.equal([{ bearer: ['records:write'] }]);
    expect(list.security).to.deep.equal([]);
    const optional = buildOpenApi(catalogOf(defineRoute({ ...listItems, operationId: 'optionalItems', path: '/v1/optional', auth: 'optional' })), { version: '1' });
    expect(optional.paths!['/v1/optional']!.get!.security).to.deep.equal([{}, { bearer: [] }]);
    const anyBearer = buildOpenApi(catalogOf(defineRoute({ ...listItems, operationId: 'selfItems', path: '/v1/self-items', auth: { scope: null } })), { version: '1' });
    expect(anyBearer.paths!['/v1/self-items']!.get!.security).to.deep.equal([{ bearer: [] }]);
    expect(Object.keys(anyBearer.paths!['/v1/self-items']!.get!.responses!)).to.deep.equal(['200', '206', '401', '403', 'default']);
    expect(document.components!.securitySchemes!['bearer']).to.include({ type: 'http', scheme: 'bearer' });
  });

  it('gives one parameter per property, required from the schema (path always)', () => {
    expect(put.parameters).to.deep.equal([
      { name: 'id', in: 'path', required: true, description: 'The item id.', schema: { type: 'string' } },
      { name: 'dry', in: 'query', required: false, schema: { type: 'boolean' } },
      { name: 'mode', in: 'query', required: true, schema: { type: 'string' } },
    ]);
    expect(list).to.not.have.property('parameters');
  });

  it('references $id schemas as components, also inside other components', () => {
    expect(put.requestBody).to.deep.equal({ required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/Item' } } } });
    expect(document.components!.schemas!['ItemList']).to.deep.equal({ type: 'object', required: ['data'], properties: { data: { type: 'array', items: { $ref: '#/components/schemas/Item' } } } });
    expect(document.components!.schemas!['Item']).to.not.have.property('$id');
    expect(Object.keys(document.components!.schemas!)).to.deep.equal(['ErrorEnvelope', 'Item', 'ItemList', 'Record', 'RecordInput']);
  });

  it('types maps as additionalProperties (TypeBox writes patternProperties ^.*$)', () => {
    const item = document.components!.schemas!['Item'] as { properties: Record<string, unknown> };
    expect(item.properties['tags']).to.deep.equal({ type: 'object', additionalProperties: { type: 'integer' } });
  });

  it('groups error codes by status, each answered by ErrorEnvelope', () => {
    const putResponses = put.responses!;
    const listResponses = list.responses!;
    // 401 and 403 come from the route's declared auth, whether or not its errors list them; default covers the rest.
    expect(Object.keys(putResponses)).to.deep.equal(['201', '400', '401', '403', '409', 'default']);
    expect(putResponses['400'].description).to.equal('Error envelope; code is one of: INVALID_SHAPE, MISSING_FIELD.');
    expect(putResponses['401'].description).to.equal('Error envelope; code is one of: AUTH_REQUIRED, GRANT_REVOKED, GRANT_EXPIRED.');
    expect(putResponses['403'].description).to.equal('Error envelope; code is one of: SCOPE_FORBIDDEN, DID_CLAIM_DENIED.');
    expect(putResponses['409'].content).to.deep.equal({ 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } });
    expect(Object.keys(listResponses)).to.deep.equal(['200', '206', 'default']);
    expect((listResponses['default'] as { content?: unknown }).content).to.deep.equal({ 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } });
    expect(listResponses['206'].content).to.deep.equal({ 'text/plain': {} });
  });

  it("lists the authenticator's own codes only as it declares them: core adds AUTH_REQUIRED and SCOPE_FORBIDDEN alone", () => {
    const bare = new RouteCatalog();
    bare.add('test', putItem);
    const responses = buildOpenApi(bare, { version: '1' }).paths!['/v1/items/{id}']!.put!.responses!;
    expect(responses['401'].description).to.equal('Error envelope; code is one of: AUTH_REQUIRED.');
    expect(responses['403'].description).to.equal('Error envelope; code is one of: SCOPE_FORBIDDEN.');
  });

  it('is deterministic', () => {
    expect(JSON.stringify(buildOpenApi(catalogOf(putItem, listItems), { version: '9.9.9' }))).to.equal(JSON.stringify(document));
  });

  it('refuses two different schemas under one $id', () => {
    const clash = defineRoute({ ...listItems, operationId: 'clash', path: '/v1/clash', responses: { 200: { description: 'x', schema: Type.Object({}, { $id: 'Item' }) } } });
    expect(() => buildOpenApi(catalogOf(putItem, clash), { version: '1' })).to.throw(/\$id "Item"/);
  });
});
