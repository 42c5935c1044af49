/**
 * The actors plugin: the actor directory (spec §4.7 `GET /v1/actors`,
 * `GET /v1/actors/lookup`) as one global fold over coordination threads.
 * Answers are built from the caller's view of the fold, so a restricted
 * credential never learns of an actor, thread or domain it cannot read.
 * Trust by domain comes from the trust plugin's service when it is loaded.
 */
import { bindValue, resolve } from '../../core/di/token.js';
import { TrustServiceToken, type TrustService } from '../trust/index.js';
import { definePlugin } from '../../core/plugin/plugin.js';
import { actorDirectoryFold } from './actor-directory-fold.js';
import { listActors } from './routes/list-actors.js';
import { lookupActor } from './routes/lookup-actor.js';
import { NO_TRUST, TrustLookupToken, type TrustLookup } from './trust-lookup.js';

export { ACTOR_DIRECTORY_FOLD, type ActorDirectoryState, type ActorEntry } from './actor-directory-fold.js';
export { TrustLookupToken, type TrustLookup, type TrustByDomain } from './trust-lookup.js';

export const ACTORS_ROUTES = [listActors, lookupActor] as const;

export const actorsPlugin = definePlugin({
  name: 'actors',
  tags: {
    actors: 'The actor directory: who wrote on this instance, with their threads and trust.',
  },
  version: '1.0.0',
  dependencies: ['ledger'],
  optionalDependencies: ['trust'],
  register(scope) {
    scope.fold(actorDirectoryFold);
    // Trust is optional: looked up on first use (every plugin has registered by then); without the trust plugin it is {}.
    let trust: TrustService | null | undefined;
    const lookup: TrustLookup = {
      byDomain: (caller, actor) => {
        if (trust === undefined) trust = scope.container.isRegistered(TrustServiceToken, true) ? resolve(scope.container, TrustServiceToken) : null;
        return trust ? trust.byDomain(caller, actor) : NO_TRUST.byDomain(caller, actor);
      },
    };
    bindValue(scope.container, TrustLookupToken, lookup);
    for (const route of ACTORS_ROUTES) scope.route(route);
    scope.capability('actors.directory', true);
  },
});
