/**
 * The auth plugin's ingest gates, in the order they run:
 * 1. credentials-thread: the auth thread is written by this plugin only.
 * 2. config-authority: configuration records need config:write (spec §2.9).
 * 3. write-grains: a credential holding write grains (and no records:write)
 *    writes only inside them (§5.3).
 * 4. actor-claim: a credential writes only as a DID it may act as, and only
 *    as its claimed actor when it claimed one (§5.1.2; docs/decisions.md).
 * 5. reserved-kinds: identity, invite and credential kinds mean something only
 *    on the auth thread; elsewhere they would only mislead a reader.
 * 6. grant-chain: a grant's chain is at most 64 hops and matches the walk of
 *    its record's actual parents; a child never substitutes its parent's
 *    guard (§5.4 rules 6 and 7). Built per plugin instance: it reads the graph.
 */
import { isAdmin, grainsFor } from '../../core/access/scopes.js';
import type { IngestGate } from '../../core/access/ingest-gate.js';
import { LoomError } from '../../core/errors/loom-error.js';
import { TH_ENGINE_CONFIG } from '../../core/records/reserved-threads.js';
import { mayActAs } from './actor-permission.js';
import { AUTH_THREAD, KIND_GRANT } from './auth-thread.js';
import type { CredentialService } from './credential-service.js';
import { ancestryProblem, readGrantFields } from './grant-graph.js';

export const credentialsThreadGate: IngestGate = {
  name: 'auth.credentials-thread',
  check({ record, context }) {
    // A replay (the admin-only import of an export) restores the instance's own history, credentials included.
    if (record.thread === AUTH_THREAD && context.via !== 'engine' && context.via !== 'replay') {
      throw new LoomError('FORBIDDEN', 'the credentials thread is written only by the auth plugin: use /v1/service-accounts and /v1/bootstrap/service-account');
    }
  },
};

export const configAuthorityGate: IngestGate = {
  name: 'auth.config-authority',
  check({ record, context }) {
    if (record.thread !== TH_ENGINE_CONFIG || context.via === 'engine') return;
    const scopes = context.caller.scopes;
    if (!scopes.includes('config:write') && !isAdmin(scopes)) {
      throw new LoomError('SCOPE_FORBIDDEN', 'configuration records on th_engine_config need the config:write scope (or admin)');
    }
  },
};

export const writeGrainsGate: IngestGate = {
  name: 'auth.write-grains',
  check({ record, namespace, context }) {
    if (context.caller.kind !== 'credential' || context.via === 'engine') return;
    // No write grains: the route's own scope (records:write, threads:write, config:write) already decided.
    const grains = grainsFor(context.caller.scopes, 'write');
    if (grains === null || grains.length === 0) return;
    const admitted = grains.some((grain) =>
      grain.kind === 'thread' ? grain.resource === record.thread : namespace === grain.resource || namespace.startsWith(`${grain.resource}/`),
    );
    if (!admitted) {
      throw new LoomError('SCOPE_FORBIDDEN', `this credential writes only within its grains (${grains.map((g) => `${g.kind}:${g.resource}:write`).join(', ') || 'none'}); the record is on ${record.thread} in namespace ${namespace}`);
    }
  },
};

export const actorClaimGate: IngestGate = {
  name: 'auth.actor-claim',
  check({ record, context }) {
    // Peers relay records of other actors (their signatures are checked by federation); engine writes are the instance's own.
    // Replays (admin-only imports) carry every actor's records, as a peer relays them.
    if (context.caller.kind !== 'credential' || context.via === 'federation' || context.via === 'engine' || context.via === 'replay') return;
    const caller = context.caller;
    if (caller.actor !== null) {
      if (record.actor !== caller.actor) {
        throw new LoomError('DID_CLAIM_DENIED', `this request claimed X-Service-Actor ${caller.actor} but the record's actor is ${record.actor}`);
      }
      return;
    }
    if (!mayActAs(caller, record.actor)) {
      throw new LoomError('DID_CLAIM_DENIED', `this credential may not write as ${record.actor}: it writes as ${caller.principal ?? 'its own DID'} or an allowed actor`);
    }
  },
};

const RESERVED_KIND = /^core\.(identity|invite|auth)\./;

export const reservedKindsGate: IngestGate = {
  name: 'auth.reserved-kinds',
  check({ record, context }) {
    const kind = record.body['kind'];
    if (context.via !== 'replay' && record.thread !== AUTH_THREAD && typeof kind === 'string' && RESERVED_KIND.test(kind)) {
      throw new LoomError('FORBIDDEN', `body.kind ${kind} is reserved to the auth plugin: issue grants with POST /v1/grants, invites with POST /v1/invites, bindings with POST /v1/self/bindings`);
    }
  },
};

export function grantChainGate(credentials: CredentialService): IngestGate {
  return {
    name: 'auth.grant-chain',
    check({ record }) {
      if (record.thread !== AUTH_THREAD || record.body['kind'] !== KIND_GRANT) return;
      const fields = readGrantFields(record.body);
      if (typeof fields === 'string') throw new LoomError('INVALID_SHAPE', `grant record: ${fields}`);
      const problem = ancestryProblem(credentials.state().grants, record, fields);
      if (problem !== null) throw new LoomError('GRANT_REFUSED', `grant refused: ${problem}`);
    },
  };
}

export function authGates(credentials: CredentialService): readonly IngestGate[] {
  return [credentialsThreadGate, reservedKindsGate, configAuthorityGate, writeGrainsGate, actorClaimGate, grantChainGate(credentials)];
}
