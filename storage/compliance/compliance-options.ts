/**
 * What a driver hands `runStoreCompliance`. The factory is the only thing
 * that varies between drivers (abstract-level's test/common.js); the crash
 * suite additionally needs a module it can import in a child process, since
 * a function cannot cross a process boundary.
 */
import type { RecordStore } from '../contract/record-store.js';

/** Opens (and returns, already open) a store kept in `location`, an existing directory the driver owns. */
export type OpenStoreAt = (location: string) => Promise<RecordStore>;

/** One isolated store under test, made by the factory. */
export interface StoreHarness {
  /** A fresh, empty, OPENED store in its own location. */
  readonly store: RecordStore;
  /**
   * Opens a NEW store instance on the same location. The suite calls it only
   * after it has closed the previous instance, and only when
   * `capabilities.persistent` is true; it may be omitted otherwise.
   */
  reopen?(): Promise<RecordStore>;
  /** Closes every store this harness opened that is still open, then deletes the location. */
  cleanup(): Promise<void>;
}

export interface CrashOptions {
  /**
   * Absolute path (or `file:` URL) of a compiled ES module that the child
   * process imports; it must export an `OpenStoreAt` under `exportName`.
   * It must not be a mocha test file (it is imported outside mocha).
   */
  readonly driverModule: string;
  /** @default 'openStore' */
  readonly exportName?: string;
  /**
   * How many acknowledged appends to wait for before SIGKILL.
   * @default 300
   */
  readonly acknowledgedBeforeKill?: number;
}

export interface StoreComplianceOptions {
  /** Shown in the top-level describe, e.g. `SqliteRecordStore`. */
  readonly name: string;
  /** Called once per test or group; each call must return a store isolated from every other. */
  readonly factory: () => Promise<StoreHarness>;
  /**
   * Enables the crash suite (a child process appends, is SIGKILLed, and every
   * acknowledged record must survive). Skipped when absent or when the store
   * is not persistent.
   */
  readonly crash?: CrashOptions;
  /**
   * Drivers with `onlineBackup`: opens the copy `backup()` wrote into `location` as a working store (a
   * file-based driver's copy opens where it lies; a database's is restored somewhere first).
   * @default the crash opener on `location`
   */
  readonly openBackup?: OpenStoreAt;
}
