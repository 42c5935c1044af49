/**
 * Seals a sync pair's peer bearer for a home shared by the servers of one
 * log (the store's slots): AES-256-GCM under a key derived from the instance
 * key (InstanceKey.deriveKey), the pair id as associated data, so a sealed
 * token copied to another pair's slot does not open. Every server of a
 * shared log is the same instance (one DID, one key), so whichever leads
 * opens what another sealed; a database dump alone opens nothing.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const PREFIX = 'v1';

export class PairSecretBox {
  readonly #key: Buffer;

  constructor(key: Buffer) {
    if (key.length !== 32) throw new TypeError('an AES-256 key is 32 bytes');
    this.#key = key;
  }

  seal(pairId: string, token: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    cipher.setAAD(Buffer.from(pairId, 'utf8'));
    const sealed = Buffer.concat([cipher.update(token, 'utf8'), cipher.final()]);
    return [PREFIX, iv.toString('base64url'), sealed.toString('base64url'), cipher.getAuthTag().toString('base64url')].join('.');
  }

  /** The token, or null when the text is not a token this key sealed for this pair (another instance key, tampering). */
  open(pairId: string, text: string): string | null {
    const [prefix, iv, sealed, tag, ...rest] = text.split('.');
    if (prefix !== PREFIX || !iv || sealed === undefined || !tag || rest.length > 0) return null;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.#key, Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(pairId, 'utf8'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(sealed, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      return null;
    }
  }
}
