/**
 * A service of an optional plugin (trust, auth, search), looked up once on
 * first use: that plugin may register after this one, or not at all.
 */
import type { DependencyContainer } from 'tsyringe';
import { resolve, type Token } from '../../core/di/token.js';

export function optionalService<T>(container: DependencyContainer, key: Token<T>): () => T | null {
  let found: T | null | undefined;
  return () => (found === undefined ? (found = container.isRegistered(key as symbol, true) ? resolve(container, key) : null) : found);
}
