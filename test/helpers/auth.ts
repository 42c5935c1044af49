/**
 * Credentials for loopback HTTP tests: bootstrap the first admin the way a
 * client does (secret generated here, only its SHA-256 sent), then mint
 * service accounts with exactly the scopes a test needs.
 */
import { expect } from 'chai';
import { formatBearer, mintSecret, tokenIdOf } from '../../plugins/auth/bearer-token.js';
import { request, type HttpAnswer } from './http-server.js';

export interface Credential {
  readonly token: string;
  readonly serviceAccountId: string;
  readonly did: string;
}

export const bearer = (credential: Credential | string): Record<string, string> => ({
  authorization: `Bearer ${typeof credential === 'string' ? credential : credential.token}`,
});

/** Bootstraps `sa_admin` (admin, any actor) and returns its bearer. */
export async function bootstrapAdmin(url: string, id = 'sa_admin'): Promise<Credential> {
  const secret = mintSecret();
  const answer = await request(url, 'POST', '/v1/bootstrap/service-account', {
    json: { service_account_id: id, display_name: 'test admin', scopes: ['admin'], with_token: { token_id: tokenIdOf(secret), env_tag: 'prod' } },
  });
  expect(answer.status, answer.text).to.equal(201);
  return { token: formatBearer('prod', id, secret), serviceAccountId: id, did: `did:sync:system:${id}` };
}

/** Creates a service account with these scopes (and actors) as `admin`; returns its bearer. */
export async function createAccount(url: string, admin: Credential, name: string, scopes: readonly string[], actors?: readonly string[]): Promise<Credential> {
  const answer = await request(url, 'POST', '/v1/service-accounts', { json: { name, scopes, ...(actors ? { actors } : {}) }, headers: bearer(admin) });
  expect(answer.status, answer.text).to.equal(201);
  expect(answer.json.api_key).to.be.a('string');
  return { token: answer.json.api_key, serviceAccountId: answer.json.id, did: answer.json.did };
}

export async function revokeAccount(url: string, admin: Credential, id: string): Promise<HttpAnswer> {
  return request(url, 'DELETE', `/v1/service-accounts/${id}`, { headers: bearer(admin) });
}
