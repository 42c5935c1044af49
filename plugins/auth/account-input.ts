/** Checks the scopes and actors a service account is created with, and fills the defaults. */
import { isScopeOrGrain, SCOPES } from '../../core/access/scopes.js';
import { LoomError } from '../../core/errors/loom-error.js';
import { namespaceSyntaxError } from '../../core/records/namespace-path.js';
import { actorEntryError } from './actor-permission.js';
import { DEFAULT_SCOPES, defaultActors, scopesWithinNamespace } from './scope-presets.js';

export function accountInput(input: { scopes?: readonly string[]; actors?: readonly string[]; namespace?: string }): { scopes: string[]; actors: string[]; namespace: string } {
  const namespace = input.namespace ?? 'default';
  if (namespace !== 'default') {
    const syntax = namespaceSyntaxError(namespace);
    if (syntax) throw new LoomError('INVALID_SHAPE', `namespace: ${syntax}`);
  }
  const requested = input.scopes ?? DEFAULT_SCOPES;
  const bad = requested.find((scope) => !isScopeOrGrain(scope));
  if (bad !== undefined) throw new LoomError('INVALID_SHAPE', `scopes: ${JSON.stringify(bad)} is neither a scope (${SCOPES.join(', ')}) nor a grain (thread:<id>:read|write, namespace:<ns>:read|write)`);
  const scopes = scopesWithinNamespace(requested, namespace);
  if (typeof scopes === 'string') throw new LoomError('INVALID_SHAPE', `scopes: ${scopes}`);
  const actors = input.actors ? [...input.actors] : defaultActors(scopes);
  for (const actor of actors) {
    const error = actorEntryError(actor);
    if (error) throw new LoomError('INVALID_SHAPE', `actors: ${error}`);
  }
  return { scopes: [...new Set(scopes)], actors: [...new Set(actors)], namespace };
}
