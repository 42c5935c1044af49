/**
 * Imports a driver's `OpenStoreAt` by module path and export name: how the
 * crash suite and its child process both reach a driver they cannot be handed.
 */
import { pathToFileURL } from 'node:url';
import type { OpenStoreAt } from './compliance-options.js';

export const DEFAULT_OPENER_EXPORT = 'openStore';

/** `driverModule` is an absolute path or a `file:` URL of a compiled ES module. */
export async function loadStoreOpener(driverModule: string, exportName = DEFAULT_OPENER_EXPORT): Promise<OpenStoreAt> {
  const url = driverModule.startsWith('file:') ? driverModule : pathToFileURL(driverModule).href;
  const opener = (await import(url))[exportName] as unknown;
  if (typeof opener !== 'function') throw new TypeError(`${driverModule} has no function export "${exportName}"`);
  return opener as OpenStoreAt;
}
