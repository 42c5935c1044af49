/** The SDK's half of a bearer (sdk/client-secret.ts) agrees with the auth plugin's (plugins/auth/bearer-token.ts). */
import { expect } from 'chai';
import { formatBearer, mintSecret, newServiceAccountId, tokenIdOf } from '../sdk/index.js';
import { parseBearer, SECRET_PATTERN, SERVICE_ACCOUNT_ID_PATTERN, tokenIdOf as serverTokenIdOf } from '../plugins/auth/bearer-token.js';

describe('client-held secrets (SDK) and the auth plugin agree', () => {
  it('a minted secret, its token id and the bearer read the same on both sides', () => {
    for (let i = 0; i < 50; i += 1) {
      const secret = mintSecret();
      const account = newServiceAccountId();
      expect(secret).to.match(SECRET_PATTERN);
      expect(account).to.match(SERVICE_ACCOUNT_ID_PATTERN);
      expect(tokenIdOf(secret)).to.equal(serverTokenIdOf(secret));
      expect(parseBearer(formatBearer('prod', account, secret))).to.deep.equal({ env: 'prod', serviceAccountId: account, secret });
    }
  });
});
