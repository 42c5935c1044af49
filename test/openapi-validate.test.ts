/**
 * The committed document is valid OpenAPI 3.1 (checked against the official
 * OAI schemas by @seriousme/openapi-schema-validator), and follows Loom's own
 * rules: unique operationIds, every declared error answered by ErrorEnvelope,
 * the shared components named. The validator is itself calibrated on OAI
 * pass/fail fixtures from test/vectors/08-openapi-validation.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { expect } from 'chai';
import { errorStatus } from '../core/errors/codes.js';
import type { OpenAPIObject, OperationObject, ReferenceObject, ResponseObject } from 'openapi3-ts/oas31';
import { silentLogger } from '../core/plugin/logger.js';
import type { RouteCatalog } from '../core/plugin/route-catalog.js';
import { createReferenceLoom as createLoom } from '../server/reference-loom.js';
import { publishedDocumentPath, repoRoot } from '../server/openapi/published-document.js';

// OAI's fixtures, vendored with their license in test/vectors.
const FIXTURES = join(repoRoot(), 'test', 'vectors', '08-openapi-validation');
const ERROR_ENVELOPE_REF = '#/components/schemas/ErrorEnvelope';
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

const CALIBRATION = [
  { file: 'oas-3.1/pass/non-oauth-scopes.yaml', valid: true },
  { file: 'oas-3.1/pass/mega.yaml', valid: true },
  { file: 'oas-3.1/fail/no_containers.yaml', valid: false },
  { file: 'oas-3.1/fail/invalid_schema_types.yaml', valid: false },
] as const;

function operations(document: OpenAPIObject): Array<{ where: string; operation: OperationObject }> {
  return Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
    METHODS.flatMap((method) => (item[method] ? [{ where: `${method.toUpperCase()} ${path}`, operation: item[method]! }] : [])),
  );
}

function refsIn(value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) for (const item of value) refsIn(item, found);
  else if (typeof value === 'object' && value !== null) {
    for (const [key, member] of Object.entries(value)) {
      if (key === '$ref' && typeof member === 'string') found.push(member);
      else refsIn(member, found);
    }
  }
  return found;
}

describe('openapi validation', () => {
  let document: OpenAPIObject;
  let catalog: RouteCatalog;

  before(async () => {
    document = JSON.parse(await readFile(publishedDocumentPath(), 'utf8')) as OpenAPIObject;
    const dataDir = await mkdtemp(join(tmpdir(), 'loom-validate-'));
    try {
      const loom = await createLoom({ dataDir, logger: silentLogger, federation: {} });
      catalog = loom.catalog;
      await loom.stop();
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  describe('the validator, on OAI fixtures', () => {
    for (const { file, valid } of CALIBRATION) {
      it(`${valid ? 'accepts' : 'rejects'} ${file}`, async () => {
        const result = await new Validator().validate(join(FIXTURES, file));
        expect(result.valid, JSON.stringify(result.errors)).to.equal(valid);
      });
    }
  });

  it('the committed document is valid OpenAPI 3.1', async () => {
    const validator = new Validator();
    const result = await validator.validate(document as unknown as Record<string, unknown>);
    expect(result.valid, JSON.stringify(result.errors, null, 2)).to.equal(true);
    expect(validator.version).to.equal('3.1');
    expect(document.openapi).to.equal('3.1.0');
  });

  it('every operationId is unique', () => {
    const ids = operations(document).map(({ operation }) => operation.operationId);
    expect(ids).to.not.include(undefined);
    expect(new Set(ids).size).to.equal(ids.length);
  });

  it('every operation answers its errors, and a default, with ErrorEnvelope; authenticated ones list 401 and 403', () => {
    const routes = new Map(catalog.all().map(({ route }) => [route.operationId, route]));
    for (const { where, operation } of operations(document)) {
      const errors = Object.entries(operation.responses ?? {}).filter(([status]) => status === 'default' || Number(status) >= 400);
      for (const [status, response] of errors) {
        const schema = (response as ResponseObject).content?.['application/json']?.schema as ReferenceObject | undefined;
        expect(schema?.$ref, `${where} ${status}`).to.equal(ERROR_ENVELOPE_REF);
      }
      const route = routes.get(operation.operationId!);
      expect(route, `${where}: not in the catalogue`).to.not.equal(undefined);
      const statuses = errors.map(([status]) => status);
      expect(statuses, `${where} has no default error response`).to.include('default');
      for (const code of route!.errors) expect(statuses, `${where} declares ${code}`).to.include(String(errorStatus(code)));
      if (route!.auth !== 'none' && route!.auth !== 'optional') {
        expect(statuses, `${where} needs a credential but lists no 401`).to.include('401');
        expect(statuses, `${where} can refuse an actor claim but lists no 403`).to.include('403');
      } else {
        // An exempt route answers 401 only for its own proof (RECREDENTIAL_REFUSED), never AUTH_REQUIRED.
        const ownUnauthorized = route!.errors.some((code) => errorStatus(code) === 401);
        if (!ownUnauthorized) expect(statuses, `${where} is exempt yet lists 401`).to.not.include('401');
        expect(route!.errors, `${where} is exempt yet declares AUTH_REQUIRED`).to.not.include('AUTH_REQUIRED');
      }
    }
  });

  it('names the shared components, resolves every $ref and leaks no $id or TypeBox marker', () => {
    const schemas = document.components?.schemas ?? {};
    expect(schemas).to.include.keys('Record', 'RecordInput', 'ErrorEnvelope');
    for (const ref of refsIn(document)) {
      expect(ref, ref).to.match(/^#\/components\/schemas\//);
      expect(schemas, ref).to.have.property(ref.slice('#/components/schemas/'.length));
    }
    const text = JSON.stringify(document);
    expect(text).to.not.include('"$id"');
    expect(text).to.not.include('"~kind"');
  });

  it('declares the bearer scheme and a security requirement on every operation', () => {
    expect(document.components?.securitySchemes?.['bearer']).to.include({ type: 'http', scheme: 'bearer' });
    for (const { where, operation } of operations(document)) expect(operation.security, where).to.be.an('array');
  });
});
