/**
 * The auth plugin: service accounts, bearer tokens, delegation grants,
 * memberships, invites and bindings as records on a thread of its own, and on
 * the framework's extension points the Authenticator (with grant liveness),
 * six ingest gates (credentials thread, reserved kinds, configuration
 * authority, write grains, actor claim, grant chain), two read policies (read
 * grains, sealed credentials), the CORS policy, four configuration topics and
 * the /health facts about re-credential proofs.
 */
import { AUTH_THREAD } from './auth-thread.js';
import { peerCredentials, PeerCredentialsToken } from './peer-credentials.js';
import { Authenticator } from '../../core/access/authenticator.js';
import { CorsPolicy } from '../../core/access/cors-policy.js';
import { bindValue, resolve } from '../../core/di/token.js';
import { EngineStatusToken } from '../../core/engine/engine-status.js';
import type { OwnFold } from '../../core/plugin/own-fold.js';
import { RecordWriterToken } from '../../core/engine/record-writer.js';
import { LogCriticalSectionToken } from '../../core/engine/log-critical-section.js';
import { RecordBusToken } from '../../core/engine/broadcast.js';
import { RecordStore } from '../../storage/contract/record-store.js';
import type { ChallengeSlots } from './passkeys.js';
import { Config } from '../../core/folds/config/config-topic.js';
import { definePlugin } from '../../core/plugin/plugin.js';
import { authCorsPolicy } from './auth-cors-policy.js';
import { BearerAuthenticator } from './bearer-authenticator.js';
import { bootstrapFromEnvironment } from './bootstrap-from-environment.js';
import { AuthOptions, AuthOptionsToken } from './config.js';
import { CredentialService, CredentialServiceToken } from './credential-service.js';
import { credentialsFold, type CredentialsState } from './credentials-fold.js';
import { authGates } from './ingest-gates.js';
import { grantFold } from './grant-fold.js';
import { delegationPolicy, DelegationPolicyToken } from './delegation-policy.js';
import { GrantService, GrantServiceToken } from './grant-service.js';
import { MembershipService, MembershipServiceToken } from './membership-service.js';
import { SelfService, SelfServiceToken } from './self-service.js';
import { RecredentialDoor, RecredentialDoorToken } from './recredential-door.js';
import { PrincipalResolver } from '../../core/access/principal-resolver.js';
import { ServerInfo } from '../../core/server/server-info.js';
import { issueGrant } from './routes/issue-grant.js';
import { revokeGrant } from './routes/revoke-grant.js';
import { createInvite } from './routes/create-invite.js';
import { listInvites } from './routes/list-invites.js';
import { revokeInvite } from './routes/revoke-invite.js';
import { redeemInvite } from './routes/redeem-invite.js';
import { listMembers } from './routes/list-members.js';
import { adoptMember } from './routes/adopt-member.js';
import { revokeMember } from './routes/revoke-member.js';
import { getSelf } from './routes/get-self.js';
import { listSelfBindings } from './routes/list-self-bindings.js';
import { createSelfBinding } from './routes/create-self-binding.js';
import { createSelfBindingChallenge } from './routes/create-self-binding-challenge.js';
import { deleteSelfBinding } from './routes/delete-self-binding.js';
import { listSelfCredentials } from './routes/list-self-credentials.js';
import { revokeSelfCredential } from './routes/revoke-self-credential.js';
import { createRecredentialChallenge } from './routes/create-recredential-challenge.js';
import { recredential } from './routes/recredential.js';
import { AUTH_READ_POLICIES } from './read-policies.js';
import { bootstrapServiceAccount } from './routes/bootstrap-service-account.js';
import { createServiceAccount } from './routes/create-service-account.js';
import { getIdentity } from './routes/get-identity.js';
import { listScopePresets } from './routes/list-scope-presets.js';
import { listServiceAccounts } from './routes/list-service-accounts.js';
import { revokeServiceAccount } from './routes/revoke-service-account.js';
import { rotateServiceAccountKey } from './routes/rotate-service-account-key.js';
import { authCorsOriginsTopic, authRequiredTopic, grantLifetimeTopic, passkeyRpTopic } from './topics.js';

export { AuthOptions, AuthOptionsToken } from './config.js';
export { AUTH_THREAD } from './auth-thread.js';
export { authRequiredTopic, authCorsOriginsTopic, grantLifetimeTopic, passkeyRpTopic } from './topics.js';
export { GrantServiceToken } from './grant-service.js';
export { DelegationPolicyToken, type DelegationPolicy } from './delegation-policy.js';
export { MembershipServiceToken } from './membership-service.js';
export { SelfServiceToken } from './self-service.js';
export { RecredentialDoorToken } from './recredential-door.js';
export { CredentialServiceToken } from './credential-service.js';
// ---- federation handshake (issue 35): peer credentials ----
export { PeerCredentialsToken, type PeerCredentials, type IssuedPeerCredential } from './peer-credentials.js';
// ---- end federation handshake ----
export { parseBearer, formatBearer, mintSecret, tokenIdOf, SECRET_PATTERN } from './bearer-token.js';
export { identityOf, IdentitySchema } from './identity.js';
export { serviceAccountOf, grantOf, grantChainOf, SERVICE_ACCOUNT_CLAIM, GRANT_CLAIM, GRANT_CHAIN_CLAIM } from './caller-claims.js';
export { SCOPE_PRESETS } from './scope-presets.js';

export const AUTH_ROUTES = [
  bootstrapServiceAccount,
  listServiceAccounts,
  createServiceAccount,
  revokeServiceAccount,
  rotateServiceAccountKey,
  listScopePresets,
  getIdentity,
  issueGrant,
  revokeGrant,
  createInvite,
  listInvites,
  revokeInvite,
  redeemInvite,
  listMembers,
  adoptMember,
  revokeMember,
  getSelf,
  listSelfBindings,
  createSelfBinding,
  createSelfBindingChallenge,
  deleteSelfBinding,
  listSelfCredentials,
  revokeSelfCredential,
  createRecredentialChallenge,
  recredential,
] as const;

export const authPlugin = definePlugin({
  name: 'auth',
  tags: {
    auth: 'Service accounts, bearer tokens, grants, invites, members, passkeys and the first-admin bootstrap.',
  },
  version: '1.0.0',
  dependencies: ['ledger'],
  options: AuthOptions,
  register(scope, options) {
    bindValue(scope.container, AuthOptionsToken, options);
    const engine = resolve(scope.container, EngineStatusToken);
    // The fold registers below (fold order is part of GET /v1/folds); the service reads it once the engine started.
    let credentialsState: OwnFold<CredentialsState> | null = null;
    const credentials = new CredentialService(resolve(scope.container, RecordWriterToken), { state: () => credentialsState!.state() }, resolve(scope.container, LogCriticalSectionToken));
    bindValue(scope.container, CredentialServiceToken, credentials);
    const config = resolve(scope.container, Config);
    const store = resolve(scope.container, RecordStore);
    const bus = resolve(scope.container, RecordBusToken);
    // On a shared log, state another server wrote a moment ago may not be folded here yet: lookups that would refuse catch up first.
    const catchUp = store.capabilities.sharedLog === true ? () => bus.caughtUp() : null;
    const authenticator = new BearerAuthenticator(credentials, config, options.required, Date.now, catchUp);
    const grants = new GrantService(credentials, config, resolve(scope.container, ServerInfo).instanceDid, options.envTag);
    const memberships = new MembershipService(credentials, grants);
    const self = new SelfService(credentials, config, authenticator, Date.now, challengeSlots(store));
    bindValue(scope.container, GrantServiceToken, grants);
    bindValue(scope.container, MembershipServiceToken, memberships);
    bindValue(scope.container, SelfServiceToken, self);
    // Exposed (not only bound privately) so an embedder can watch the door: its limiters and hash count.
    scope.expose(RecredentialDoorToken, new RecredentialDoor(credentials, grants, self, options.recredentialRate, Date.now, catchUp));
    scope.configTopic(authRequiredTopic);
    scope.configTopic(authCorsOriginsTopic);
    scope.configTopic(grantLifetimeTopic);
    scope.configTopic(passkeyRpTopic);
    credentialsState = scope.fold(credentialsFold);
    // Credentials, grants and memberships: never coordination work.
    scope.systemThread(AUTH_THREAD);
    scope.fold(grantFold);
    scope.expose(Authenticator, authenticator);
    // The actor claim (bearer-authenticator.ts) travels in this header.
    scope.corsHeaders(['x-service-actor']);
    scope.expose(CorsPolicy, authCorsPolicy(authenticator, config));
    // Rule 8 (spec §5.4): whoever judges work resolves both sides through their grant chains.
    scope.expose(PrincipalResolver, { principalOf: (did) => credentials.state().grants.principalOf(did, Date.now()) });
    scope.expose(DelegationPolicyToken, delegationPolicy(() => credentials.state().grants, Date.now));
    // ---- federation handshake (issue 35): the federation plugin mints and revokes pair tokens through this ----
    scope.expose(PeerCredentialsToken, peerCredentials(credentials, options.envTag));
    // ---- end federation handshake ----
    scope.describe('health', 'proof_kinds_accepted', () => self.proofKindsAccepted());
    scope.describe('manifest', 'conventions.identity_path', () => '/v1/identity');
    scope.describe('health', 'passkey_rp', () => {
      const rp = self.relyingParty();
      return rp ? { rp_id: rp.rp_id } : undefined;
    });
    for (const gate of authGates(credentials)) scope.ingestGate(gate);
    for (const policy of AUTH_READ_POLICIES) scope.readPolicy(policy);
    for (const route of AUTH_ROUTES) scope.route(route);
    scope.capability('auth.bearer', true);
    scope.capability('auth.service_accounts', true);
    scope.capability('auth.grains', true);
    scope.capability('auth.grants', true);
    scope.capability('auth.members', true);
    scope.capability('auth.invites', true);
    scope.capability('auth.recovery_codes', true);
    scope.capability('auth.passkeys', true);
    // No account verifier is implemented, so no auth.account_binding flag (absence = unsupported): account bindings answer 409 ACCOUNT_NOT_ACCEPTED.
    let announced = -1;
    const announce = () => {
      const required = authenticator.required();
      if (required === (announced === 1)) return;
      announced = required ? 1 : 0;
      scope.log.log('info', required ? 'auth enforcement on: requests need a bearer token' : 'auth enforcement off: requests without a bearer run with every scope', { auth_required: required });
    };
    scope.onStart(async () => {
      if (options.bootstrapSecret !== undefined) await bootstrapFromEnvironment(credentials, options.bootstrapSecret, options.envTag, scope.log);
      announce();
      const stop = config.watch(authRequiredTopic, announce);
      scope.onStop(stop);
    });
  },
});

/** Where servers share the log, passkey challenges live in the store's slots so any server answers them; in memory otherwise. */
function challengeSlots(store: RecordStore): ChallengeSlots | null {
  if (store.capabilities.sharedLog !== true || !store.writeSlot || !store.takeSlot) return null;
  return { writeSlot: store.writeSlot.bind(store), takeSlot: store.takeSlot.bind(store) };
}
