/**
 * SHA-256 of UTF-8 text as 64 lowercase hex. The record algebra takes this as a
 * parameter so the server can inject `node:crypto` on its hot path (about ten
 * times faster here) while browsers and the SDK use the portable @noble/hashes one.
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';

export type Sha256Hex = (utf8Text: string) => string;

export const nobleSha256Hex: Sha256Hex = (utf8Text) => bytesToHex(sha256(utf8ToBytes(utf8Text)));

export function sha256HexOfBytes(bytes: Uint8Array): string {
  return bytesToHex(sha256(bytes));
}
