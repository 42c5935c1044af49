/**
 * A member's DID derives from who defined it and the label they gave it
 * (spec §4.15): the same caller and label name the same member (a define
 * updates it); another caller's identical label is a different member.
 * Readable first (`did:sync:agent:reviewer-…`), then 16 hex of
 * SHA-256(owner, label) so two owners never collide.
 */
import { nobleSha256Hex } from '../../core/records/sha256.js';

const SLUG_MAX = 40;

export function memberDid(owner: string, label: string): string {
  const slug =
    label
      .normalize('NFKD')
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, SLUG_MAX)
      .replace(/-+$/, '') || 'member';
  return `did:sync:agent:${slug}-${nobleSha256Hex(`loom.member\n${owner}\n${label}`).slice(0, 16)}`;
}
