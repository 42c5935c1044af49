/**
 * The route × credential matrix, generated from the OpenAPI document the
 * running server publishes (not from a hand list): every operation is called
 * with no token, malformed, unknown and revoked tokens, a token lacking its
 * scope, a token with exactly its scope, and an admin token. A route added
 * later is covered without anyone listing it, and one added without thought
 * (a scope nothing enforces, a missing exemption) fails here by itself.
 */
import { expect } from 'chai';
import type { OpenAPIObject, OperationObject } from 'openapi3-ts/oas31';
import { covers, SCOPES, type Scope } from '../../core/access/scopes.js';
import { bearer, bootstrapAdmin, createAccount, revokeAccount, type Credential } from '../helpers/auth.js';
import { get, startServer, type StartedServer } from '../helpers/http-server.js';

/**
 * Spec §5.1.3's exempt routes, plus the OpenAPI document, the auth-invariant
 * instance bootstrap, and invite redemption (the invite token is the
 * credential, as the proof is for re-credential; docs/decisions.md), and
 * the orchestrator probes /health/live and /health/ready (§5.1.3 exempts
 * /health; the split probes say no more than it does).
 */
const EXEMPT = new Set([
  'GET /health',
  'GET /health/live',
  'GET /health/ready',
  'POST /v1/bootstrap/service-account',
  'GET /.well-known/service',
  'GET /v1/instance/bootstrap',
  'GET /v1/scope_presets',
  'GET /openapi.json',
  'POST /v1/recredential',
  'POST /v1/recredential/challenge',
  'POST /v1/invites/redeem',
  // ---- MCP (issue 34): RFC 9728 metadata is how a client without a token learns where to get one ----
  'GET /.well-known/oauth-protected-resource',
  'GET /.well-known/oauth-protected-resource/v1/mcp',
  // ---- end MCP ----
  // ---- federation handshake (issue 35): §5.1 rule 7, authenticated by the signed manifest and body; the
  // initiator's poll and the peer's revoke notice continue it, signed by the pinned peer DID (docs/decisions.md).
  'POST /v1/federation/pair',
  'POST /v1/federation/pair/{id}/poll',
  'POST /v1/federation/pair/{id}/revoke',
  // ---- end federation handshake ----
  // ---- federation pair lifecycle (issue 35, part 2): the token renewal, signed by the pinned peer DID like the poll ----
  'POST /v1/federation/pair/{id}/renew',
  // ---- end federation pair lifecycle ----
  // ---- relay mailbox (issue 35): a deposit is authenticated by the envelope's signature by the sender did:key; receive and ack by
  // a request signed with the receiver's instance key (plugins/federation/relay/mailbox-proof.ts). A relay has no bearer for either.
  'POST /v1/mailbox/{did}',
  'GET /v1/mailbox/{did}/receive',
  'POST /v1/mailbox/{did}/ack',
  // ---- end relay mailbox ----
]);
const EXEMPT_WHEN_PRESENT = new Set<string>();

interface Operation {
  readonly method: string;
  readonly path: string;
  readonly operation: OperationObject;
  /** null: exempt; [] any live bearer; [scope]. */
  readonly scope: Scope | null | 'any';
}

function operationsOf(document: OpenAPIObject): Operation[] {
  const out: Operation[] = [];
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const method of ['get', 'post', 'put', 'patch', 'delete'] as const) {
      const operation = (item as Record<string, OperationObject | undefined>)[method];
      if (!operation) continue;
      const security = operation.security ?? [];
      const required = security.length > 0 && !security.some((requirement) => Object.keys(requirement).length === 0);
      const scopes = required ? (security[0]!['bearer'] ?? []) : [];
      out.push({ method: method.toUpperCase(), path, operation, scope: !required ? null : scopes.length === 0 ? 'any' : (scopes[0] as Scope) });
    }
  }
  return out;
}

/** Plausible path parameters: a thread id, a record id, or a word; unknown ones are harmless (404 after auth). */
function concretePath(path: string): string {
  return path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    if (name === 'id' && path.startsWith('/v1/threads')) return 'th_' + 'e'.repeat(64);
    if (name === 'id' && path.startsWith('/v1/records')) return 'f'.repeat(64);
    if (name === 'key') return 'th_' + 'e'.repeat(64);
    if (name === 'name') return 'thread_state';
    if (name === 'topic') return 'no_such_topic';
    return 'sa_matrix_absent';
  });
}

/** Calls an operation and returns the status; streams are cut once their headers arrive. */
async function call(url: string, op: Operation, headers: Record<string, string>): Promise<{ status: number; code: string | undefined }> {
  const controller = new AbortController();
  const init: RequestInit = { method: op.method, headers: { ...headers }, signal: controller.signal };
  if (op.operation.requestBody) {
    init.body = '{}';
    (init.headers as Record<string, string>)['content-type'] = 'application/json';
  }
  const response = await fetch(url + concretePath(op.path), init);
  let code: string | undefined;
  if ((response.headers.get('content-type') ?? '').startsWith('application/json')) {
    const text = await response.text();
    try {
      code = (JSON.parse(text) as { code?: string }).code;
    } catch {
      code = undefined;
    }
  }
  controller.abort();
  return { status: response.status, code };
}

/** A scope list that does not cover `scope`: every scope but it and admin (and, for records scopes, no grain of its class). */
/** Every scope but this one and those that imply it (admin; federation:manage for the federation:* scopes). */
function lacking(scope: Scope): string[] {
  return SCOPES.filter((s) => s !== scope && !covers([s], scope));
}

describe('auth: route × credential matrix from the OpenAPI document', function () {
  this.timeout(120_000);
  let server: StartedServer;
  let document: OpenAPIObject;
  let operations: Operation[];
  let admin: Credential;
  const exactly = new Map<string, Credential>();
  const without = new Map<string, Credential>();
  let revoked: Credential;
  let guest: Credential;

  before(async () => {
    server = await startServer({ auth: { required: true }, federation: {} });
    admin = await bootstrapAdmin(server.url);
    document = (await get(server.url, '/openapi.json')).json;
    operations = operationsOf(document);
    for (const scope of SCOPES) {
      exactly.set(scope, await createAccount(server.url, admin, `exactly ${scope}`, [scope]));
      without.set(scope, await createAccount(server.url, admin, `without ${scope}`, lacking(scope)));
    }
    revoked = await createAccount(server.url, admin, 'revoked', ['admin']);
    expect((await revokeAccount(server.url, admin, revoked.serviceAccountId)).status).to.equal(200);
    guest = await createAccount(server.url, admin, 'guest', []);
  });
  after(async () => server.stop());

  it('covers every operation the server publishes, and exempts exactly the spec list', () => {
    expect(operations.length).to.be.above(25);
    const exempt = operations.filter((op) => op.scope === null).map((op) => `${op.method} ${op.path}`);
    for (const route of exempt) expect(EXEMPT.has(route) || EXEMPT_WHEN_PRESENT.has(route), `${route} is exempt but the spec does not exempt it`).to.equal(true);
    for (const route of EXEMPT) expect(exempt, `${route} must be exempt`).to.include(route);
  });

  it('no token: 401 AUTH_REQUIRED on every non-exempt operation; exempt ones answer', async () => {
    for (const op of operations) {
      const { status, code } = await call(server.url, op, {});
      if (op.scope === null) expect(status, `${op.method} ${op.path}`).to.not.be.oneOf([401, 403]);
      else expect([status, code], `${op.method} ${op.path}`).to.deep.equal([401, 'AUTH_REQUIRED']);
    }
  });

  const badTokens: Array<[string, () => string]> = [
    ['malformed', () => 'not a token'],
    ['unknown', () => 'loom_prod_sa_nobody_' + 'A'.repeat(43)],
    ['revoked', () => revoked.token],
  ];
  for (const [kind, token] of badTokens) {
    it(`${kind} token: 401 AUTH_REQUIRED on every non-exempt operation`, async () => {
      for (const op of operations) {
        if (op.scope === null) continue;
        const { status, code } = await call(server.url, op, bearer(token()));
        expect([status, code], `${op.method} ${op.path}`).to.deep.equal([401, 'AUTH_REQUIRED']);
      }
    });
  }

  it('a token without the scope: 403 SCOPE_FORBIDDEN; a live scopeless token passes only "any bearer" routes', async () => {
    for (const op of operations) {
      if (op.scope === null) continue;
      if (op.scope === 'any') {
        const { status } = await call(server.url, op, bearer(guest));
        expect(status, `${op.method} ${op.path}`).to.not.be.oneOf([401, 403]);
        continue;
      }
      const { status, code } = await call(server.url, op, bearer(without.get(op.scope)!));
      expect([status, code], `${op.method} ${op.path} without ${op.scope}`).to.deep.equal([403, 'SCOPE_FORBIDDEN']);
    }
  });

  it('a token with exactly the scope, and an admin token: neither 401 nor 403', async () => {
    for (const op of operations) {
      if (op.scope === null) continue;
      const credential = op.scope === 'any' ? guest : exactly.get(op.scope)!;
      for (const [who, token] of [[`exactly ${op.scope}`, credential], ['admin', admin]] as const) {
        const { status, code } = await call(server.url, op, bearer(token));
        expect(status, `${op.method} ${op.path} as ${who}: ${code}`).to.not.be.oneOf([401, 403]);
      }
    }
  });

  it('the declared 401/403 responses are the ones the server gives', () => {
    for (const op of operations) {
      const statuses = Object.keys(op.operation.responses ?? {});
      // An exempt route may still answer 401 for its own proof (RECREDENTIAL_REFUSED), never for a missing bearer.
      if (op.scope === null) expect(JSON.stringify(op.operation.responses?.['401'] ?? {}), `${op.method} ${op.path}`).to.not.include('AUTH_REQUIRED');
      else expect(statuses, `${op.method} ${op.path}`).to.include.members(['401', '403', 'default']);
    }
  });
});
