/**
 * hapi's router and the route catalogue agree: every mounted route carries
 * its declaration (`settings.plugins.loom`) under its operationId, and no
 * route is mounted outside the catalogue.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { silentLogger } from '../core/plugin/logger.js';
import type { AnyRouteDecl } from '../core/plugin/route.js';
import { createReferenceLoom as createLoom } from '../server/reference-loom.js';
import type { Loom } from '../core/server/create-loom.js';
import { RecordStore } from '../storage/contract/record-store.js';
import { FoldEngineToken } from '../core/engine/fold-engine.js';
import { RecordBusToken } from '../core/engine/broadcast.js';

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

  it('no route reads around the caller: none injects the store, the fold engine or the bus', () => {
    // Reads go through RecordReader with input.caller, so the read policies cannot be skipped.
    const forbidden = new Set<symbol>([RecordStore, FoldEngineToken, RecordBusToken]);
    for (const { plugin, route } of loom.catalog.all()) {
      for (const [name, token] of Object.entries(route.inject as Record<string, symbol>)) {
        expect(forbidden.has(token), `${plugin}/${route.operationId} injects ${name} (${token.description})`).to.equal(false);
      }
    }
  });

  it('the ingest gates and read policies of the reference server are in force, in order', () => {
    expect(loom.engine.ingestor.gateNames()).to.deep.equal(['auth.credentials-thread', 'auth.reserved-kinds', 'auth.config-authority', 'auth.write-grains', 'auth.actor-claim', 'auth.grant-chain', 'rules.rule-config', 'fleet.control', 'rules.permission', 'data-plane.node-records', 'federation.consent-records', 'federation.control-records']);
    expect(loom.engine.reader.policyNames()).to.deep.equal(['auth.read-grains', 'auth.sealed-credentials', 'federation.control-threads']);
  });
});
