/** Facts about this instance that discovery routes report. */
import { token } from '../di/token.js';

export interface ServerInfo {
  readonly version: string;
  readonly apiVersion: 'v1';
  readonly specVersion: string;
  readonly instanceDid: string;
  /** Backend of the store in use. */
  readonly storeBackend: string;
  /** Where plugin state and derived files live (null: nothing on disk). */
  readonly dataDir: string | null;
  /** Backends this build can run on. */
  readonly storeBackends: readonly string[];
  /** Auth enforcement is off (`--insecure-localhost`, or auth not loaded). */
  readonly authRequired: () => boolean;
  /** Paths of conventional surfaces, null while the plugin serving them is absent. */
  readonly conventions: Readonly<Record<'decisions_path' | 'identity_path' | 'sync_path' | 'trust_path', string | null>>;
}

export const ServerInfo = token<ServerInfo>('core.ServerInfo');

export const API_VERSION = 'v1';
export const SPEC_VERSION = '0.18';
export const MANIFEST_VERSION = '1';
