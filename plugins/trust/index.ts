/**
 * The trust plugin (spec §1, §4.6, §4.7): the global `trust` fold (scores
 * per actor, domain and judge from judged outcomes and imported trust;
 * trust-fold.ts has the evidence rules, trust-import.ts the import's), `GET /v1/trust`, `GET /v1/folds/principal_trust`, and the
 * TrustService other plugins (the actor directory) ask. `GET /v1/folds/trust`
 * is the ledger's generic fold route over the fold's value.
 *
 * Tests inject the clock through the factory (plugin options are schema
 * data and cannot carry functions).
 */
import { PrincipalResolver } from '../../core/access/principal-resolver.js';
import { resolve } from '../../core/di/token.js';
import { RecordReaderToken } from '../../core/engine/record-reader.js';
import { ClockToken } from '../../core/engine/clock.js';
import { definePlugin, type LoomPlugin } from '../../core/plugin/plugin.js';
import { getPrincipalTrust } from './routes/get-principal-trust.js';
import { listTrust } from './routes/list-trust.js';
import { createTrustFold } from './trust-fold.js';
import { trustImportGate } from './import-gate.js';
import { TrustService, TrustServiceToken } from './trust-service.js';

export { TrustServiceToken, PRINCIPAL_TRUST_FOLD, WHOLE_REACH, type TrustService, type TrustListing, type TrustByDomain, type PrincipalTrustValue } from './trust-service.js';
export { TRUST_FOLD, GENERAL_DOMAIN, createTrustFold, applyTrust, type TrustFoldValue, type TrustFoldHooks } from './trust-fold.js';
export { type TrustScore, type PrincipalTrust, type TrustFilter, type TrustGrouping, type TrustSummary } from './trust-rows.js';
export { SUCCESS_WORDS, FAILURE_WORDS } from './verdict-words.js';
export { HALF_LIFE_DAYS, decayWeight } from './decay.js';
export { wilsonInterval, wilsonLowerBound, Z_95 } from './wilson.js';
export { KIND_TRUST_IMPORT, IMPORT_MARGIN, discountedEvidence, sourceEvidenceProblem, type SourceEvidence, type ImportedEvidence, type TrustImportBody } from './trust-import.js';

export const TRUST_ROUTES = [listTrust, getPrincipalTrust] as const;

export const trustPlugin: LoomPlugin = definePlugin({
  name: 'trust',
  tags: { trust: 'Trust: Wilson-scored verdicts on actors by domain, and task lists.' },
  version: '1.0.0',
  dependencies: ['ledger'],
  // Judges are resolved through their grant chains when auth is loaded (PrincipalResolver).
  optionalDependencies: ['auth'],
  register(scope) {
    const now = resolve(scope.container, ClockToken);
    // The auth plugin exposes the resolver (spec §5.4 rule 8) and may register after this plugin: look it up at read time.
    let resolver: PrincipalResolver | null = null;
    const principals = (): PrincipalResolver | null => (resolver ??= scope.container.isRegistered(PrincipalResolver, true) ? resolve(scope.container, PrincipalResolver) : null);
    scope.fold(createTrustFold({ now, principals }));
    scope.ingestGate(trustImportGate);
    const service = new TrustService(resolve(scope.container, RecordReaderToken), principals, now);
    scope.expose(TrustServiceToken, service);
    for (const route of TRUST_ROUTES) scope.route(route);
    scope.describe('manifest', 'conventions.trust_path', () => '/v1/trust');
    scope.capability('trust.scores', true);
    scope.capability('trust.principal_trust', true);
  },
});
