/**
 * Who may use a member's memory and bundle doors: its owner (who defined
 * it), the member itself (a caller acting as its DID) and operators (a
 * local or system caller, or an admin credential). Everyone else: 403
 * FORBIDDEN. An unknown member is 404 ACTOR_UNKNOWN first: the roster
 * already tells any reader which members exist, so saying so hides nothing.
 * Import is the owner's or an operator's only: a member may not bring
 * trust into itself.
 */
import { actingDid, type Caller } from '../../../core/access/caller.js';
import { isAdmin } from '../../../core/access/scopes.js';
import { LoomError } from '../../../core/errors/loom-error.js';
import type { MemberEntry } from '../member-registry-fold.js';

export function isOperator(caller: Caller): boolean {
  return caller.kind === 'local' || caller.kind === 'system' || isAdmin(caller.scopes);
}

/** The member `did`, when `caller` may use its memory (`self`: the member itself counts). */
export function accessibleMember(caller: Caller, did: string, entry: MemberEntry | null, self = true): MemberEntry {
  if (!entry) throw new LoomError('ACTOR_UNKNOWN', `no member ${did} is defined here`);
  const who = actingDid(caller);
  if (who === entry.current.owner || (self && who === did) || isOperator(caller)) return entry;
  throw new LoomError('FORBIDDEN', `only ${entry.current.owner} (who defined ${did})${self ? ', the member itself' : ''} or an operator may do this`);
}

/** Refuses writing for a retired member (it writes nothing more, spec §3); reading and cancelling stay open. */
export function notRetired(entry: MemberEntry): MemberEntry {
  if (entry.current.retired) throw new LoomError('ACTOR_RETIRED', `${entry.did} is retired; define it again with the same label first`);
  return entry;
}
