import { expect } from 'chai';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { refusalOfSync } from '../../core/errors/refusal-of.js';
import { UrlSigner } from './signed-url.js';

const HASH = 'ab'.repeat(32);
const OTHER_HASH = 'cd'.repeat(32);
const EXPIRES = 1_800_000_000;
const BEFORE = EXPIRES - 60;

function parts(query: string): { expires: string; sig: string; content_type: string | undefined } {
  const params = new URLSearchParams(query);
  return { expires: params.get('expires')!, sig: params.get('sig')!, content_type: params.get('content_type') ?? undefined };
}

const refusal = refusalOfSync;

/** The signature with its first character changed (the last one carries 2 unused bits, so it could decode to the same MAC). */
function tamper(sig: string): string {
  return (sig[0] === 'A' ? 'B' : 'A') + sig.slice(1);
}

describe('signed blob URLs', () => {
  let dir: string;
  beforeEach(async () => (dir = await mkdtemp(join(tmpdir(), 'loom-signed-url-'))));
  afterEach(async () => rm(dir, { recursive: true, force: true }));

  it('verifies what it signed, with and without a content type', async () => {
    const signer = await UrlSigner.open(join(dir, 'url-secret'));
    const plain = parts(signer.sign(HASH, EXPIRES));
    expect(plain.expires).to.equal(String(EXPIRES));
    expect(plain.content_type).to.equal(undefined);
    expect(plain.sig).to.match(/^[A-Za-z0-9_-]{43}$/);
    signer.verify(HASH, plain.expires, plain.sig, undefined, BEFORE);

    const typed = parts(signer.sign(HASH, EXPIRES, 'text/csv; charset=utf-8'));
    expect(typed.content_type).to.equal('text/csv; charset=utf-8');
    expect(typed.sig).to.not.equal(plain.sig);
    signer.verify(HASH, typed.expires, typed.sig, typed.content_type, BEFORE);
    signer.verify(HASH, typed.expires, typed.sig, typed.content_type, EXPIRES - 1);
  });

  describe('refuses an altered URL with SIGNED_URL_INVALID', () => {
    let signer: UrlSigner;
    let signed: ReturnType<typeof parts>;
    beforeEach(async () => {
      signer = await UrlSigner.open(join(dir, 'url-secret'));
      signed = parts(signer.sign(HASH, EXPIRES, 'text/plain'));
    });

    const cases: Array<[string, () => [string, string | undefined, string, string | undefined]]> = [
      ['a tampered signature', () => [HASH, signed.expires, tamper(signed.sig), signed.content_type]],
      ['another hash', () => [OTHER_HASH, signed.expires, signed.sig, signed.content_type]],
      ['a later expiry', () => [HASH, String(EXPIRES + 1), signed.sig, signed.content_type]],
      ['an earlier expiry', () => [HASH, String(EXPIRES - 1), signed.sig, signed.content_type]],
      ['another content type', () => [HASH, signed.expires, signed.sig, 'text/html']],
      ['the content type dropped', () => [HASH, signed.expires, signed.sig, undefined]],
      ['no expiry', () => [HASH, undefined, signed.sig, signed.content_type]],
      ['a non-numeric expiry', () => [HASH, 'tomorrow', signed.sig, signed.content_type]],
      ['a negative expiry', () => [HASH, '-1', signed.sig, signed.content_type]],
      ['an empty signature', () => [HASH, signed.expires, '', signed.content_type]],
      ['a truncated signature', () => [HASH, signed.expires, signed.sig.slice(0, 42), signed.content_type]],
      ['a padded signature', () => [HASH, signed.expires, signed.sig + '=', signed.content_type]],
      ['a signature in standard base64', () => [HASH, signed.expires, '+/' + signed.sig.slice(2), signed.content_type]],
      ['a hex signature', () => [HASH, signed.expires, 'ab'.repeat(32), signed.content_type]],
    ];
    for (const [name, args] of cases) {
      it(name, () => {
        const [hash, expires, sig, contentType] = args();
        const error = refusal(() => signer.verify(hash, expires, sig, contentType, BEFORE));
        expect(error.code).to.equal('SIGNED_URL_INVALID');
        expect(error.status).to.equal(403);
      });
    }

    it('a content type added to a URL signed without one', () => {
      const bare = parts(signer.sign(HASH, EXPIRES));
      expect(refusal(() => signer.verify(HASH, bare.expires, bare.sig, 'text/html', BEFORE)).code).to.equal('SIGNED_URL_INVALID');
    });
  });

  it('refuses a URL at or past its expiry with SIGNED_URL_EXPIRED', async () => {
    const signer = await UrlSigner.open(join(dir, 'url-secret'));
    const { expires, sig } = parts(signer.sign(HASH, EXPIRES));
    for (const now of [EXPIRES, EXPIRES + 1, EXPIRES + 86_400]) {
      const error = refusal(() => signer.verify(HASH, expires, sig, undefined, now));
      expect(error.code).to.equal('SIGNED_URL_EXPIRED');
      expect(error.status).to.equal(403);
    }
    // An altered URL is invalid whatever the time.
    expect(refusal(() => signer.verify(OTHER_HASH, expires, sig, undefined, EXPIRES + 1)).code).to.equal('SIGNED_URL_INVALID');
  });

  it('creates the secret (and its directory) with mode 0600, and reuses it on reopen', async () => {
    const file = join(dir, 'nested', 'deeper', 'url-secret');
    const first = await UrlSigner.open(file);
    const info = await stat(file);
    expect(info.mode & 0o777).to.equal(0o600);
    const text = await readFile(file, 'utf8');
    expect(Buffer.from(text.trim(), 'base64url')).to.have.length(32);

    const again = await UrlSigner.open(file);
    expect(await readFile(file, 'utf8')).to.equal(text);
    expect(again.sign(HASH, EXPIRES, 'text/plain')).to.equal(first.sign(HASH, EXPIRES, 'text/plain'));
    const { expires, sig } = parts(first.sign(HASH, EXPIRES));
    again.verify(HASH, expires, sig, undefined, BEFORE);
  });

  it('another secret revokes the URLs of the first', async () => {
    const one = await UrlSigner.open(join(dir, 'one'));
    const two = await UrlSigner.open(join(dir, 'two'));
    const { expires, sig } = parts(one.sign(HASH, EXPIRES));
    expect(parts(two.sign(HASH, EXPIRES)).sig).to.not.equal(sig);
    expect(refusal(() => two.verify(HASH, expires, sig, undefined, BEFORE)).code).to.equal('SIGNED_URL_INVALID');
    const ephemeral = UrlSigner.ephemeral();
    expect(refusal(() => ephemeral.verify(HASH, expires, sig, undefined, BEFORE)).code).to.equal('SIGNED_URL_INVALID');
    const own = parts(ephemeral.sign(HASH, EXPIRES));
    ephemeral.verify(HASH, own.expires, own.sig, undefined, BEFORE);
  });

  it('refuses a secret file shorter than 32 bytes rather than signing with it', async () => {
    const file = join(dir, 'url-secret');
    await writeFile(file, Buffer.alloc(16, 7).toString('base64url') + '\n', { mode: 0o600 });
    let failure: unknown;
    await UrlSigner.open(file).catch((error: unknown) => (failure = error));
    expect(failure).to.be.instanceOf(Error);
    expect((failure as Error).message).to.match(/shorter than 32 bytes/);
    // The file is left for the operator to inspect, not silently replaced.
    expect(Buffer.from((await readFile(file, 'utf8')).trim(), 'base64url')).to.have.length(16);
  });
});
