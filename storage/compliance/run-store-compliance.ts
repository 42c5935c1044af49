/**
 * The shared driver suite (abstract-level's test/index.js): every driver's
 * test file calls `runStoreCompliance` once, then adds its own tests.
 * Groups are skipped only where the store's capabilities manifest says a
 * feature is absent (structured query, persistence) or the store lacks an
 * optional method the group checks (slots); the crash group also needs
 * `options.crash`.
 */
import type { RecordStore, StoreCapabilities } from '../contract/record-store.js';
import { appendSuite } from './append.suite.js';
import { backupSuite } from './backup.suite.js';
import type { StoreComplianceOptions } from './compliance-options.js';
import { crashSuite } from './crash.suite.js';
import { lifecycleSuite } from './lifecycle.suite.js';
import { maintenanceSuite } from './maintenance.suite.js';
import { queryPropertySuite } from './query-property.suite.js';
import { querySuite } from './query.suite.js';
import { readSuite } from './read.suite.js';
import { slotsSuite } from './slots.suite.js';
import type { SuiteContext } from './traits.js';

/**
 * Declares (with mocha's describe/it) the whole compliance suite for one driver.
 * Call it at the top level of a mocha test file.
 *
 * @example
 * runStoreCompliance({
 *   name: 'SqliteRecordStore',
 *   factory: temporaryStoreFactory(openStore),
 *   crash: { driverModule: fileURLToPath(new URL('./open-store.js', import.meta.url)) },
 * });
 */
export function runStoreCompliance(options: StoreComplianceOptions): void {
  let capabilities: StoreCapabilities | undefined;
  let probed: RecordStore | undefined;
  const context: SuiteContext = {
    options,
    capabilities() {
      if (!capabilities) throw new Error('capabilities not probed yet');
      return capabilities;
    },
    implements(method) {
      if (!probed) throw new Error('the store was not probed yet');
      return typeof probed[method] === 'function';
    },
  };

  describe(`${options.name}: record store compliance`, () => {
    before(async () => {
      const probe = await options.factory();
      try {
        capabilities = probe.store.capabilities;
        probed = probe.store;
      } finally {
        await probe.cleanup();
      }
    });

    appendSuite(context);
    readSuite(context);
    querySuite(context);
    queryPropertySuite(context);
    lifecycleSuite(context);
    maintenanceSuite(context);
    backupSuite(context);
    slotsSuite(context);
    crashSuite(context);
  });
}
