/**
 * Signed, expiring read URLs: `/v1/blobs/<hash>?expires=<unix seconds>&sig=<mac>`
 * (plus `content_type` when one was signed), where mac = base64url
 * HMAC-SHA256 over `GET`, the path, the expiry and the content type, keyed by
 * a 32-byte instance secret created on first use in the plugin's data
 * directory (mode 0600, never logged or served), or, on a shared log, in a
 * slot of the shared store (`data-plane:url-secret`), so a URL one server
 * signed is served by any. Changing the secret revokes every URL handed out.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { LoomError } from '../../core/errors/loom-error.js';

const SECRET_SLOT = 'data-plane:url-secret';

export class UrlSigner {
  private constructor(private readonly secret: Buffer) {}

  /** Loads the secret at `file`, creating it when absent. */
  static async open(file: string): Promise<UrlSigner> {
    try {
      const secret = Buffer.from((await readFile(file, 'utf8')).trim(), 'base64url');
      if (secret.length < 32) throw new Error(`the URL signing secret ${file} is shorter than 32 bytes: delete it to make a new one`);
      return new UrlSigner(secret);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    const secret = randomBytes(32);
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, secret.toString('base64url') + '\n', { mode: 0o600, flag: 'wx' });
    await chmod(file, 0o600);
    return new UrlSigner(secret);
  }

  /** Loads the secret every server of a shared log uses, the first server to ask creating it (under the store's lock). */
  static shared(store: { readSlot(name: string): Promise<string | null>; writeSlot(name: string, value: string): Promise<void>; withLock<T>(key: string, work: () => Promise<T>): Promise<T> }): Promise<UrlSigner> {
    return store.withLock(SECRET_SLOT, async () => {
      const kept = await store.readSlot(SECRET_SLOT);
      if (kept !== null) {
        const secret = Buffer.from(kept, 'base64url');
        if (secret.length < 32) throw new Error(`the shared URL signing secret (slot ${SECRET_SLOT}) is shorter than 32 bytes`);
        return new UrlSigner(secret);
      }
      const secret = randomBytes(32);
      await store.writeSlot(SECRET_SLOT, secret.toString('base64url'));
      return new UrlSigner(secret);
    });
  }

  /** An instance secret held only in memory (stores that are not persistent). */
  static ephemeral(): UrlSigner {
    return new UrlSigner(randomBytes(32));
  }

  private mac(hash: string, expires: number, contentType: string | undefined): Buffer {
    return createHmac('sha256', this.secret).update(`GET\n/v1/blobs/${hash}\n${expires}\n${contentType ?? ''}`).digest();
  }

  /** The query string that makes `/v1/blobs/<hash>` readable until `expires` (Unix seconds). */
  sign(hash: string, expires: number, contentType?: string): string {
    const query = new URLSearchParams({ expires: String(expires), ...(contentType ? { content_type: contentType } : {}), sig: this.mac(hash, expires, contentType).toString('base64url') });
    return query.toString();
  }

  /** Throws SIGNED_URL_INVALID for anything not signed here, SIGNED_URL_EXPIRED past its expiry. */
  verify(hash: string, expires: string | undefined, sig: string, contentType: string | undefined, nowSeconds: number): void {
    const when = expires !== undefined && /^\d{1,12}$/.test(expires) ? Number(expires) : NaN;
    const decoded = /^[A-Za-z0-9_-]{43}$/.test(sig) ? Buffer.from(sig, 'base64url') : null;
    // Only the canonical spelling: the last character's two spare bits must be zero.
    const given = decoded && decoded.toString('base64url') === sig ? decoded : null;
    if (!Number.isFinite(when) || given === null || given.length !== 32 || !timingSafeEqual(given, this.mac(hash, when, contentType))) {
      throw new LoomError('SIGNED_URL_INVALID', 'this blob URL was not signed by this instance (or was altered): ask POST /v1/data/read-url for a new one');
    }
    if (when <= nowSeconds) throw new LoomError('SIGNED_URL_EXPIRED', `this blob URL expired at ${new Date(when * 1000).toISOString()}: ask POST /v1/data/read-url for a new one`);
  }
}
