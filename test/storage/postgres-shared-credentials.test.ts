/**
 * Credentials on servers sharing one PostgreSQL log (issue 36: any request to
 * any server):
 * - a passkey challenge issued by one server's ChallengeStore is spent on
 *   another's, exactly once, also when servers race for it, and never for
 *   another purpose or subject, or after it expired;
 * - a recovery code sent to two servers at the same moment re-credentials
 *   exactly once: the auth plugin's writes hold the store's lock, and the
 *   check runs on a fold caught up with the other server's writes.
 * The browser half (a real passkey: challenge on one server, answer on the
 * other) is the last scenario of test/http/passkey.browser.test.ts.
 */
import { expect } from 'chai';
import { ChallengeStore } from '../../plugins/auth/passkeys.js';
import { PostgresRecordStore } from '../../storage/postgres/index.js';
import type { ThrowawayCluster } from '../../storage/postgres/throwaway-cluster.js';
import { bootstrapAdmin, bearer, type Credential } from '../helpers/auth.js';
import { expectEnvelope, request, startServer, type StartedServer } from '../helpers/http-server.js';
import { clusterOrSkip, freshDatabase } from '../helpers/postgres-test-support.js';

describe('credentials across servers sharing a PostgreSQL log', function () {
  this.timeout(120_000);
  let cluster: ThrowawayCluster;

  before(async function () {
    cluster = await clusterOrSkip(this);
  });

  it('spends a challenge issued on one server on another, once; never for another purpose or subject, or once expired', async () => {
    const url = await freshDatabase(cluster, 'challenges');
    const stores = [new PostgresRecordStore({ connectionString: url }), new PostgresRecordStore({ connectionString: url })];
    for (const store of stores) await store.open();
    try {
      const slots = (store: PostgresRecordStore) => ({ writeSlot: store.writeSlot.bind(store), takeSlot: store.takeSlot.bind(store) });
      let now = Date.now();
      const [one, two] = stores.map((store) => new ChallengeStore(() => now, slots(store)));
      expect(one!.keeping).to.equal('shared');

      const { challenge } = await one!.issue('register', 'did:sync:user:alice');
      expect(await two!.consume(challenge, 'register', 'did:sync:user:alice')).to.equal(true);
      expect(await one!.consume(challenge, 'register', 'did:sync:user:alice')).to.equal(false);
      expect(await two!.consume(challenge, 'register', 'did:sync:user:alice')).to.equal(false);

      const raced = (await one!.issue('recredential', 'did:sync:user:alice')).challenge;
      const outcomes = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? one! : two!).consume(raced, 'recredential', 'did:sync:user:alice')));
      expect(outcomes.filter(Boolean)).to.have.length(1);

      const misused = (await one!.issue('register', 'did:sync:user:alice')).challenge;
      expect(await two!.consume(misused, 'recredential', 'did:sync:user:alice')).to.equal(false);
      expect(await one!.consume(misused, 'register', 'did:sync:user:alice'), 'spent by the misuse').to.equal(false);
      const otherSubject = (await one!.issue('register', 'did:sync:user:alice')).challenge;
      expect(await two!.consume(otherSubject, 'register', 'did:sync:user:bob')).to.equal(false);

      const expiring = (await one!.issue('register', 'did:sync:user:alice')).challenge;
      now += 5 * 60 * 1000 + 1;
      expect(await two!.consume(expiring, 'register', 'did:sync:user:alice')).to.equal(false);
      expect(await two!.consume('not-a-challenge', 'register', 'did:sync:user:alice')).to.equal(false);
    } finally {
      for (const store of stores) await store.close();
    }
  });

  /** Two servers with auth on one fresh database, and the admin bootstrapped through the first. */
  async function withTwoServers(name: string, work: (one: StartedServer, two: StartedServer, admin: Credential) => Promise<void>): Promise<void> {
    const url = await freshDatabase(cluster, name);
    const servers: StartedServer[] = [];
    try {
      servers.push(await startServer({ auth: { required: true }, storage: 'postgres', databaseUrl: url }));
      servers.push(await startServer({ auth: { required: true }, storage: 'postgres', databaseUrl: url }));
      const [one, two] = servers as [StartedServer, StartedServer];
      await work(one, two, await bootstrapAdmin(one.url));
    } finally {
      for (const server of servers) await server.stop();
    }
  }

  it('a proof bound through one server is accepted through another at once (the door catches up before it refuses)', async () => {
    await withTwoServers('bound_elsewhere', async (one, two, admin) => {
      for (const label of ['dee', 'eve', 'fay']) {
        const invite = await request(one.url, 'POST', '/v1/invites', { json: { membership: { preset: 'contributor', label } }, headers: bearer(admin) });
        const member = await request(one.url, 'POST', '/v1/invites/redeem', { json: { invite: invite.json.invite_token } });
        expect(member.status, member.text).to.equal(201);
        const bound = await request(one.url, 'POST', '/v1/self/bindings', { json: { kind: 'recovery_code' }, headers: bearer(member.json.token) });
        expect(bound.status, bound.text).to.equal(201);
        // At once, through the other server: its fold may not hold the binding yet, and must not refuse for that.
        const answer = await request(two.url, 'POST', '/v1/recredential', { json: { principal: label, proof: { kind: 'recovery_code', evidence: bound.json.secret } } });
        expect(answer.status, `${label}: ${answer.text}`).to.equal(201);
      }
    });
  });

  it('re-credentials with one recovery code exactly once when two servers receive it at the same moment', async () => {
    await withTwoServers('recovery', async (one, two, admin) => {
      for (const label of ['ann', 'ben', 'cyd']) {
        const invite = await request(one.url, 'POST', '/v1/invites', { json: { membership: { preset: 'contributor', label } }, headers: bearer(admin) });
        expect(invite.status, invite.text).to.equal(201);
        // Redeemed on the other server: the invite is in the shared log.
        const member = await request(two.url, 'POST', '/v1/invites/redeem', { json: { invite: invite.json.invite_token } });
        expect(member.status, member.text).to.equal(201);
        const bound = await request(one.url, 'POST', '/v1/self/bindings', { json: { kind: 'recovery_code' }, headers: bearer(member.json.token) });
        expect(bound.status, bound.text).to.equal(201);
        const send = (server: StartedServer) => request(server.url, 'POST', '/v1/recredential', { json: { principal: label, proof: { kind: 'recovery_code', evidence: bound.json.secret } } });
        const answers = await Promise.all([send(one), send(two)]);
        const statuses = answers.map((answer) => answer.status).sort();
        expect(statuses, answers.map((answer) => answer.text).join(' | ')).to.deep.equal([201, 401]);
        expectEnvelope(answers.find((answer) => answer.status === 401)!, 401, 'RECREDENTIAL_REFUSED');
      }
    });
  });
});
