/**
 * The credential a run's tools act with (ToolContext.caller). A member
 * acts under its definition, which its definer's own grant bounded at
 * define time (plugins/members/definition-bounds.ts): the scopes of the
 * tools it was given, its write clauses (`write_admit`) in place of any
 * broader write scope, read grains on the threads it reads in every run and
 * on its own run thread. A loop a person starts for themself
 * (POST /v1/work/loop) acts with that person's scopes as they were at the
 * start. The grant is written on the run's opening record, so a restarted
 * server rebuilds the same credential from the thread.
 */
import { credentialCaller, type Caller } from '../../../core/access/caller.js';
import type { JsonObject } from '../../../core/records/json.js';
import type { ToolDescriptor } from '../../members/index.js';

export interface RunGrant {
  /** The principal the credential belongs to: the member, or the person running their own loop. */
  readonly principal: string;
  /** The DID its writes are made as. */
  readonly actor: string;
  readonly scopes: readonly string[];
}

const WRITE_SCOPE = /(^records:write$|^threads:write$|^admin$|:write$)/;

/** A member's grant: its tools' scopes, write clauses narrowing writes, read grains on `reads` and the run thread. */
export function memberGrant(member: string, tools: readonly ToolDescriptor[], writeAdmit: readonly string[], reads: readonly string[], runThread: string): RunGrant {
  const scopes = new Set<string>();
  for (const tool of tools) {
    if (writeAdmit.length > 0 && WRITE_SCOPE.test(tool.scope) && tool.scope !== 'admin') for (const clause of writeAdmit) scopes.add(clause);
    else scopes.add(tool.scope);
  }
  for (const thread of reads) scopes.add(`thread:${thread}:read`);
  scopes.add(`thread:${runThread}:read`);
  return { principal: member, actor: member, scopes: [...scopes].sort() };
}

export function grantBody(grant: RunGrant): JsonObject {
  return { principal: grant.principal, actor: grant.actor, scopes: [...grant.scopes] };
}

/** The grant an opening record carries, or null when it carries none (a run recorded by something other than this loop). */
export function grantOf(opening: JsonObject): RunGrant | null {
  const grant = opening['grant'] as { principal?: unknown; actor?: unknown; scopes?: unknown } | undefined;
  if (!grant || typeof grant.principal !== 'string' || typeof grant.actor !== 'string' || !Array.isArray(grant.scopes)) return null;
  return { principal: grant.principal, actor: grant.actor, scopes: grant.scopes.filter((scope): scope is string => typeof scope === 'string') };
}

export function callerOf(grant: RunGrant): Caller {
  return credentialCaller({ principal: grant.principal, actors: [grant.actor], actor: grant.actor, scopes: grant.scopes });
}
