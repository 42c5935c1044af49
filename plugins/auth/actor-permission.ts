/**
 * Which DIDs a credential may write as (docs/decisions.md, "actor and the
 * claim"): its own principal DID, and every entry of its allowed actors,
 * each an exact DID, `*` (any), or a prefix ending in `*` (`did:sync:agent:*`).
 */
import type { Caller } from '../../core/access/caller.js';
import { isValidDid } from '../../core/records/did-syntax.js';

export function mayActAs(caller: Pick<Caller, 'principal' | 'actors'>, did: string): boolean {
  if (did === caller.principal) return true;
  return caller.actors.some((allowed) => allowed === '*' || allowed === did || (allowed.endsWith('*') && did.startsWith(allowed.slice(0, -1))));
}

/** Why an allowed-actors entry is malformed, or null: `*`, a DID, or a prefix ending in `*` that starts with `did:`. */
export function actorEntryError(entry: string): string | null {
  if (entry === '*') return null;
  if (entry.endsWith('*')) return /^did:[a-z0-9]+:[^*\s]*\*$/.test(entry) ? null : `${JSON.stringify(entry)} is not a DID prefix (did:<method>:…*)`;
  return isValidDid(entry) ? null : `${JSON.stringify(entry)} is not a valid DID`;
}
