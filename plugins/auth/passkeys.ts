/**
 * Passkeys through @simplewebauthn/server: registration with attestation
 * `none`, a discoverable credential and no extensions (spec §4.11), and
 * assertions over a challenge this instance issued. Challenges live five
 * minutes and are single-use (ChallengeStore), so a replayed assertion is refused;
 * the stored signature counter refuses a cloned authenticator (a counter that
 * does not move forward).
 */
import { createHash, randomBytes } from 'node:crypto';
import {
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type PublicKeyCredentialCreationOptionsJSON,
} from '@simplewebauthn/server';
import type { RecordStore } from '../../storage/contract/record-store.js';
import type { PasskeyMaterial } from './bindings.js';

export interface RelyingParty {
  readonly rp_id: string;
  readonly rp_name?: string;
  readonly origins: readonly string[];
}

export type ChallengePurpose = 'register' | 'recredential';

const CHALLENGE_TTL_MS = 5 * 60 * 1000;
const MAX_CHALLENGES = 10_000;

/** The store's slots, where several servers share one log (storage/contract/record-store.ts). */
export type ChallengeSlots = Required<Pick<RecordStore, 'writeSlot' | 'takeSlot'>>;

interface PendingChallenge {
  readonly purpose: ChallengePurpose;
  readonly subject: string;
  readonly expires: number;
}

/**
 * Single-use challenges, five minutes each. With a log of its own a server
 * keeps them in memory; servers sharing a log keep them in the store's slots
 * (under a hash of the challenge), so a challenge issued by one server is
 * answered on any other and still spent exactly once (`takeSlot`).
 */
export class ChallengeStore {
  private readonly pending = new Map<string, PendingChallenge>();

  constructor(
    private readonly now: () => number = Date.now,
    private readonly slots: ChallengeSlots | null = null,
  ) {}

  /** Where challenges live: `shared` when every server sharing the log sees them. */
  get keeping(): 'memory' | 'shared' {
    return this.slots ? 'shared' : 'memory';
  }

  async issue(purpose: ChallengePurpose, subject: string): Promise<{ challenge: string; expiresAt: string }> {
    const now = this.now();
    const challenge = randomBytes(32).toString('base64url');
    const entry: PendingChallenge = { purpose, subject, expires: now + CHALLENGE_TTL_MS };
    if (this.slots) {
      await this.slots.writeSlot(ChallengeStore.slotOf(challenge), JSON.stringify(entry), entry.expires);
    } else {
      for (const [key, old] of this.pending) {
        if (old.expires > now && this.pending.size < MAX_CHALLENGES) break;
        this.pending.delete(key);
      }
      this.pending.set(challenge, entry);
    }
    return { challenge, expiresAt: new Date(entry.expires).toISOString() };
  }

  /** Spends a challenge: true once, for the purpose and subject it was issued for, before it expires. */
  async consume(challenge: string, purpose: ChallengePurpose, subject: string): Promise<boolean> {
    let entry: PendingChallenge | undefined;
    if (this.slots) {
      const text = await this.slots.takeSlot(ChallengeStore.slotOf(challenge));
      entry = text === null ? undefined : (JSON.parse(text) as PendingChallenge);
    } else {
      entry = this.pending.get(challenge);
      this.pending.delete(challenge);
    }
    if (!entry) return false;
    return entry.purpose === purpose && entry.subject === subject && entry.expires > this.now();
  }

  /** The slot of a challenge: its hash, so the store never holds a live challenge in the clear. */
  private static slotOf(challenge: string): string {
    return `auth.challenge.${createHash('sha256').update(challenge).digest('base64url')}`;
  }
}

/** An opaque, stable WebAuthn user handle for a principal. */
export function userHandleOf(principal: string): Uint8Array {
  return new Uint8Array(createHash('sha256').update(`loom-user:${principal}`).digest().subarray(0, 16));
}

export async function registrationOptions(
  rp: RelyingParty,
  principal: string,
  name: string,
  challenge: string,
  existing: readonly PasskeyMaterial[],
): Promise<PublicKeyCredentialCreationOptionsJSON> {
  return generateRegistrationOptions({
    rpName: rp.rp_name ?? rp.rp_id,
    rpID: rp.rp_id,
    userName: name,
    userDisplayName: name,
    userID: userHandleOf(principal) as Uint8Array<ArrayBuffer>,
    // The bytes the base64url challenge stands for: a string would be taken as UTF-8 text and
    // re-encoded, so options.challenge (and the browser's clientDataJSON) would not match the store.
    challenge: new Uint8Array(Buffer.from(challenge, 'base64url')),
    attestationType: 'none',
    excludeCredentials: existing.map((p) => ({ id: p.credential_id, transports: [...p.transports] })),
    authenticatorSelection: { residentKey: 'required', requireResidentKey: true, userVerification: 'preferred' },
  });
}

export interface RegistrationMaterial {
  readonly credential_id: string;
  readonly client_data_json: string;
  readonly attestation_object: string;
  readonly transports?: readonly string[];
}

/** Verifies a registration; resolves the material to bind, or null when it does not verify. */
export async function verifyRegistration(rp: RelyingParty, material: RegistrationMaterial, expectChallenge: (challenge: string) => Promise<boolean>): Promise<PasskeyMaterial | null> {
  try {
    const result = await verifyRegistrationResponse({
      response: {
        id: material.credential_id,
        rawId: material.credential_id,
        type: 'public-key',
        clientExtensionResults: {},
        response: { clientDataJSON: material.client_data_json, attestationObject: material.attestation_object, transports: [...(material.transports ?? [])] as never },
      },
      expectedChallenge: expectChallenge,
      expectedOrigin: [...rp.origins],
      expectedRPID: rp.rp_id,
      requireUserVerification: false,
    });
    if (!result.verified || !result.registrationInfo) return null;
    const { credential, fmt } = result.registrationInfo;
    if (fmt !== 'none') return null;
    return {
      credential_id: credential.id,
      public_key: Buffer.from(credential.publicKey).toString('base64url'),
      counter: credential.counter,
      transports: [...(material.transports ?? [])],
    };
  } catch {
    return null;
  }
}

export interface AssertionEvidence {
  readonly credential_id: string;
  readonly client_data_json: string;
  readonly authenticator_data: string;
  readonly signature: string;
  readonly user_handle?: string;
}

/** Verifies an assertion by a bound passkey; resolves its new counter, or null when it does not verify. */
export async function verifyAssertion(rp: RelyingParty, evidence: AssertionEvidence, passkey: PasskeyMaterial, expectChallenge: (challenge: string) => Promise<boolean>): Promise<number | null> {
  try {
    const result = await verifyAuthenticationResponse({
      response: {
        id: evidence.credential_id,
        rawId: evidence.credential_id,
        type: 'public-key',
        clientExtensionResults: {},
        response: {
          clientDataJSON: evidence.client_data_json,
          authenticatorData: evidence.authenticator_data,
          signature: evidence.signature,
          ...(evidence.user_handle ? { userHandle: evidence.user_handle } : {}),
        },
      },
      expectedChallenge: expectChallenge,
      expectedOrigin: [...rp.origins],
      expectedRPID: rp.rp_id,
      credential: { id: passkey.credential_id, publicKey: new Uint8Array(Buffer.from(passkey.public_key, 'base64url')), counter: passkey.counter, transports: [...passkey.transports] as never },
      requireUserVerification: false,
    });
    return result.verified ? result.authenticationInfo.newCounter : null;
  } catch {
    return null;
  }
}
