/**
 * Every declared route, in registration order, with the plugin that declared
 * it: the one input to mounting AND to the OpenAPI document.
 */
import type { ErrorCode } from '../errors/codes.js';
import { authErrors, type AnyRouteDecl } from './route.js';

export interface CatalogEntry {
  readonly plugin: string;
  readonly route: AnyRouteDecl;
}

export class RouteCatalog {
  private readonly entries: CatalogEntry[] = [];
  private readonly operationIds = new Map<string, string>();
  private readonly paths = new Map<string, string>();

  add(plugin: string, route: AnyRouteDecl): void {
    const owner = this.operationIds.get(route.operationId);
    if (owner) throw new Error(`operationId ${route.operationId} of plugin ${plugin} is already declared by plugin ${owner}`);
    const key = `${route.method} ${route.path.replace(/\{[^}]+\}/g, '{}')}`;
    const pathOwner = this.paths.get(key);
    if (pathOwner) throw new Error(`${route.method} ${route.path} of plugin ${plugin} conflicts with ${pathOwner}`);
    if (!/^[a-z][A-Za-z0-9]*$/.test(route.operationId)) throw new Error(`operationId ${route.operationId} must be camelCase`);
    this.operationIds.set(route.operationId, plugin);
    this.paths.set(key, `${route.operationId} (plugin ${plugin})`);
    this.entries.push({ plugin, route });
  }

  all(): readonly CatalogEntry[] {
    return this.entries;
  }

  private authenticatorErrors: readonly ErrorCode[] = [];

  /** What the loaded authenticator declares it throws (set once plugins registered; none without one). */
  declareAuthenticatorErrors(codes: readonly ErrorCode[]): void {
    this.authenticatorErrors = [...codes];
  }

  /** The codes `route` may answer because of its auth (route.ts authErrors, with the authenticator's). */
  authErrors(route: AnyRouteDecl): ErrorCode[] {
    return authErrors(route, this.authenticatorErrors);
  }

  private readonly tagDescriptions = new Map<string, string>();

  /** A tag's description (a plugin's `tags`); the first plugin to describe a tag wins. */
  describeTag(tag: string, description: string): void {
    if (!this.tagDescriptions.has(tag)) this.tagDescriptions.set(tag, description);
  }

  tagDescription(tag: string): string | undefined {
    return this.tagDescriptions.get(tag);
  }
}

import { token } from '../di/token.js';
export const RouteCatalogToken = token<RouteCatalog>('core.RouteCatalog');
