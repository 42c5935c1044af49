/** node:crypto SHA-256 for the server's hot path; gives the same ids as the portable one (tested). */
import { createHash } from 'node:crypto';
import type { Sha256Hex } from '../records/sha256.js';

export const nodeSha256Hex: Sha256Hex = (utf8Text) => createHash('sha256').update(utf8Text, 'utf8').digest('hex');
