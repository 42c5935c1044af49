/**
 * Branded, typed DI tokens. tsyringe's own InjectionToken<T> does not type-check
 * resolution, so every token is a unique symbol carrying its type, and the
 * helpers below resolve with the right type.
 */
import type { DependencyContainer } from 'tsyringe';

declare const tokenType: unique symbol;

export type Token<T> = symbol & { readonly [tokenType]: T };

/** `description` names the owner and interface, e.g. `storage.RecordStore`. */
export function token<T>(description: string): Token<T> {
  return Symbol(description) as Token<T>;
}

export function resolve<T>(container: DependencyContainer, key: Token<T>): T {
  return container.resolve<T>(key);
}

export function resolveAll<T>(container: DependencyContainer, key: Token<T>): T[] {
  return container.isRegistered(key, true) ? container.resolveAll<T>(key) : [];
}

export function bindValue<T>(container: DependencyContainer, key: Token<T>, value: T): void {
  container.register<T>(key, { useValue: value });
}

export function bindFactory<T>(container: DependencyContainer, key: Token<T>, factory: (c: DependencyContainer) => T): void {
  container.register<T>(key, { useFactory: factory });
}
