/**
 * How an operator starts an instance with auth: the unattended bootstrap
 * secret (LOOM_BOOTSTRAP_TOKEN), --insecure-localhost, and the instance log
 * of permission denials (who, route, why; never the token).
 */
import { expect } from 'chai';
import { formatBearer, mintSecret } from '../../plugins/auth/bearer-token.js';
import type { Logger } from '../../core/plugin/logger.js';
import { bearer } from '../helpers/auth.js';
import { expectEnvelope, get, startServer } from '../helpers/http-server.js';

function capturingLogger(lines: Array<Record<string, unknown>>): Logger {
  const make = (fields: Record<string, unknown>): Logger => ({
    log: (level, msg, extra) => void lines.push({ level, msg, ...fields, ...extra }),
    child: (more) => make({ ...fields, ...more }),
  });
  return make({});
}

describe('auth at startup and in the instance log', function () {
  this.timeout(60_000);

  it('a bootstrap secret mints sa-bootstrap-env when no account exists, once', async () => {
    const secret = mintSecret();
    const lines: Array<Record<string, unknown>> = [];
    let server = await startServer({ auth: { required: true, bootstrapSecret: secret }, logger: capturingLogger(lines), keepDataDir: true });
    const token = formatBearer('prod', 'sa-bootstrap-env', secret);
    try {
      const identity = await get(server.url, '/v1/identity', bearer(token));
      expect(identity.json).to.include({ service_account_id: 'sa-bootstrap-env', is_authenticated: true });
      expect(identity.json.scopes).to.deep.equal(['admin']);
      expect(JSON.stringify(lines)).to.not.include(secret);
      await server.stop();
      // A second start with another secret changes nothing: an account exists.
      server = await startServer({ dataDir: server.dataDir, auth: { required: true, bootstrapSecret: mintSecret() } });
      expect((await get(server.url, '/v1/identity', bearer(token))).status).to.equal(200);
      expect((await get(server.url, '/v1/service-accounts', bearer(token))).json.data).to.have.length(1);
    } finally {
      await server.stop();
    }
  });

  it('a malformed bootstrap secret is reported and ignored; the server still starts', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const server = await startServer({ auth: { required: true, bootstrapSecret: 'short_' }, logger: capturingLogger(lines) });
    try {
      expect(lines.some((line) => line['level'] === 'warn' && String(line['msg']).includes('bootstrap secret ignored'))).to.equal(true);
      expect((await get(server.url, '/v1/service-accounts')).status).to.equal(401);
    } finally {
      await server.stop();
    }
  });

  it('--insecure-localhost: requests without a credential run with every scope, whatever auth_required says', async () => {
    const server = await startServer({ auth: { required: true }, insecureLocalhost: true });
    try {
      expect((await get(server.url, '/v1/threads')).status).to.equal(200);
      expect((await get(server.url, '/v1/capabilities')).json.auth.required).to.equal(false);
      expect(server.loom.server.info.host).to.equal('127.0.0.1');
    } finally {
      await server.stop();
    }
  });

  it('denials go to the instance log as structured lines, without the bearer', async () => {
    const lines: Array<Record<string, unknown>> = [];
    const server = await startServer({ auth: { required: true }, logger: capturingLogger(lines) });
    try {
      const badToken = 'loom_prod_sa_admin_' + 'Z'.repeat(43);
      expectEnvelope(await get(server.url, '/v1/threads', bearer(badToken)), 401, 'AUTH_REQUIRED');
      const denial = lines.find((line) => line['msg'] === 'permission denied');
      expect(denial).to.include({ level: 'warn', method: 'GET', path: '/v1/threads', status: 401, code: 'AUTH_REQUIRED' });
      expect(denial).to.have.property('reason').that.is.a('string');
      expect(JSON.stringify(lines)).to.not.include('Z'.repeat(43));
    } finally {
      await server.stop();
    }
  });
});
