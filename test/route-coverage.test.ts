/**
 * hapi's router and the route catalogue agree: every mounted route carries
 * its declaration (`settings.plugins.loom`) under its operationId, and no
 * route is mounted outside the catalogue.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { expect } from 'chai';
import { silentLogger } from '../core/plugin/logger.js';
import type { AnyRouteDecl } from '../core/plugin/route.js';
import { createReferenceLoom as createLoom } from '../server/reference-loom.js';
import type { Loom } from '../core/server/create-loom.js';
import { RecordStore } from '../storage/contract/record-store.js';
import { FoldEngineToken } from '../core/engine/fold-engine.js';
import { RecordBusToken } from '../core/engine/broadcast.js';
import { LoomEngineToken } from '../core/engine/loom-engine.js';

// Reads go through RecordReader with input.caller, so the read policies cannot be skipped.
const FORBIDDEN = new Map<symbol, string>([
  [RecordStore, 'the store'],
  [FoldEngineToken, 'the fold engine'],
  [RecordBusToken, 'the bus'],
  [LoomEngineToken, 'the engine'],
]);

function routeViolations(owner: string, route: AnyRouteDecl): string[] {
  return Object.entries(route.inject as Record<string, symbol>)
    .filter(([, token]) => FORBIDDEN.has(token))
    .map(([name, token]) => `${owner}/${route.operationId} injects ${name} (${FORBIDDEN.get(token)}, ${token.description})`);
}

/** The source tree (tests run from dist/test; the sources sit beside dist/). */
const SOURCE_ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

async function sourceFiles(folder: string): Promise<string[]> {
  const entries = await readdir(join(SOURCE_ROOT, folder), { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && !entry.name.endsWith('.d.ts'))
    .map((entry) => relative(SOURCE_ROOT, join(entry.parentPath, entry.name)))
    .sort();
}

const isRouteDecl = (value: unknown): value is AnyRouteDecl =>
  typeof value === 'object' && value !== null && typeof (value as AnyRouteDecl).operationId === 'string' && typeof (value as AnyRouteDecl).inject === 'object';

describe('route coverage', () => {
  let dataDir: string;
  let loom: Loom;

  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'loom-coverage-'));
    loom = await createLoom({ dataDir, port: 0, logger: silentLogger, federation: {} });
    await loom.initialize();
  });

  after(async () => {
    await loom?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('every server.table() route carries its declaration, with settings.id = operationId', () => {
    const byOperationId = new Map(loom.catalog.all().map(({ route }) => [route.operationId, route]));
    const table = loom.server.table();
    expect(table).to.not.be.empty;
    for (const route of table) {
      const where = `${route.method.toUpperCase()} ${route.path}`;
      const decl = (route.settings.plugins as { loom?: AnyRouteDecl } | undefined)?.loom;
      expect(decl, `${where} has no route declaration (plugins.loom)`).to.be.an('object');
      expect(route.settings.id, where).to.equal(decl!.operationId);
      const declared = byOperationId.get(decl!.operationId);
      expect(declared, `${where}: ${decl!.operationId} is not in the catalogue`).to.not.equal(undefined);
      expect(route.method.toUpperCase(), where).to.equal(declared!.method);
      expect(route.path, where).to.equal(declared!.path);
    }
  });

  it('the catalogue and the router have the same size', () => {
    expect(loom.server.table().length).to.equal(loom.catalog.all().length);
  });

  it('operationIds are unique', () => {
    const ids = loom.catalog.all().map(({ route }) => route.operationId);
    expect(new Set(ids).size).to.equal(ids.length);
  });

  it('no route reads around the caller: none injects the store, the fold engine, the bus or the engine', () => {
    const violations = loom.catalog.all().flatMap(({ plugin, route }) => routeViolations(plugin, route));
    expect(violations).to.deep.equal([]);
  });

  it('nor does any route declared under examples/ (what newcomers copy)', async () => {
    const checked: string[] = [];
    const violations: string[] = [];
    for (const file of await sourceFiles('examples')) {
      // Only modules that declare routes or plugins: the examples' main.ts files start servers when imported.
      if (!/\bdefine(Route|Plugin)\(/.test(await readFile(join(SOURCE_ROOT, file), 'utf8'))) continue;
      const module = (await import(pathToFileURL(join(SOURCE_ROOT, 'dist', file.replace(/\.ts$/, '.js'))).href)) as Record<string, unknown>;
      for (const value of Object.values(module)) {
        if (!isRouteDecl(value)) continue;
        checked.push(value.operationId);
        violations.push(...routeViolations(file, value));
      }
    }
    expect(checked, 'the example routes walked').to.include('getWordCount');
    expect(violations).to.deep.equal([]);
  });

  it('no plugin and no example resolves the engine or the fold engine: they get narrow tokens', async () => {
    const offenders: string[] = [];
    for (const file of [...(await sourceFiles('plugins')), ...(await sourceFiles('examples'))]) {
      const text = await readFile(join(SOURCE_ROOT, file), 'utf8');
      for (const name of ['LoomEngineToken', 'FoldEngineToken']) if (new RegExp(`\\b${name}\\b`).test(text)) offenders.push(`${file} names ${name}`);
    }
    expect(offenders).to.deep.equal([]);
  });

  it('the ingest gates and read policies of the reference server are in force, in order', () => {
    expect(loom.engine.ingestor.gateNames()).to.deep.equal(['auth.credentials-thread', 'auth.reserved-kinds', 'auth.config-authority', 'auth.write-grains', 'auth.actor-claim', 'auth.grant-chain', 'rules.rule-config', 'fleet.control', 'rules.permission', 'trust.import', 'federation.consent-records', 'federation.control-records', 'federation.directory-operations', 'members.registry', 'members.retired', 'members.eval-suite', 'members.eval-grade', 'members.memory', 'data-plane.node-records', 'work.run-openings', 'work.decisions']);
    expect(loom.engine.reader.policyNames()).to.deep.equal(['auth.read-grains', 'auth.sealed-credentials', 'federation.control-threads']);
  });
});
