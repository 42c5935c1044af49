/**
 * Recovery codes (spec §4.11, §8): 26 Crockford base32 characters, 130 bits
 * from the CSPRNG, shown once and kept only as a SHA-256 hash. 130 random
 * bits make a fast hash safe here: there is nothing to guess a dictionary of.
 * Input is forgiving the way Crockford intends: any case, spaces and hyphens
 * ignored, O read as 0, I and L as 1.
 */
import { createHash, randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
export const RECOVERY_CODE_LENGTH = 26;
const CODE = /^[0-9A-HJKMNP-TV-Z]{26}$/;

export function mintRecoveryCode(): string {
  const bytes = randomBytes(17); // 136 bits; the first 130 are used
  let bits = 0n;
  for (const byte of bytes) bits = (bits << 8n) | BigInt(byte);
  bits >>= 6n;
  let code = '';
  for (let i = 0; i < RECOVERY_CODE_LENGTH; i++) {
    code = ALPHABET[Number(bits & 31n)] + code;
    bits >>= 5n;
  }
  return code;
}

/** The canonical form of a typed code, or null when it cannot be one. */
export function normaliseRecoveryCode(input: string): string | null {
  if (input.length > 64) return null;
  const code = input.toUpperCase().replace(/[\s-]/g, '').replace(/O/g, '0').replace(/[IL]/g, '1');
  return CODE.test(code) ? code : null;
}

export function recoveryCodeHash(code: string): string {
  return createHash('sha256').update(code, 'utf8').digest('hex');
}
