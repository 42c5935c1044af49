/**
 * This instance's consent policy for pair requests (spec §2.8
 * `consent_policy`): the `federation_pairing` configuration record (spec
 * §2.9) when there is one, else the plugin options. The posture decides:
 * `open` auto-approves (200, tokens minted), `pair-then-ask` holds a request
 * `establishing` until an operator approves (202), `invite-only` and `closed`
 * take no requests (403 PAIR_REQUESTS_CLOSED; invites are not built yet).
 */
import { Type } from 'typebox';
import { defineConfigTopic, type Config } from '../../../core/folds/config/config-topic.js';

export const POSTURES = ['open', 'pair-then-ask', 'invite-only', 'closed'] as const;
export type Posture = (typeof POSTURES)[number];
/** Read scopes a pair token may carry besides federation:sync and federation:subscribe. */
export const READ_SCOPE_PATTERN = '^(records:read|namespace:[a-z0-9][a-z0-9._/-]{0,200}:read|thread:th_[0-9a-f]{64}:read)$';

export const federationPairingTopic = defineConfigTopic({
  topic: 'federation_pairing',
  description:
    'How this instance answers federation pair requests: default_posture open (auto-approve), pair-then-ask (an operator approves), invite-only or closed (refused); ' +
    'read_scopes: what the token minted for a peer may read besides federation:sync and federation:subscribe (default records:read; consent still filters across namespaces).',
  schema: Type.Object(
    {
      default_posture: Type.Union(POSTURES.map((p) => Type.Literal(p))),
      read_scopes: Type.Optional(Type.Array(Type.String({ pattern: READ_SCOPE_PATTERN }), { maxItems: 16 })),
    },
    { additionalProperties: false },
  ),
  keyedBy: 'single',
});

export interface PairPolicy {
  posture(): Posture;
  /** Whether requests are taken at all (the manifest's accepts_pair_requests). */
  accepts(): boolean;
  approval(): 'auto' | 'manual';
  /** The scopes of a token minted for a peer. */
  scopes(): string[];
}

export function pairPolicy(config: Config | null, defaults: { posture: Posture; readScopes: readonly string[] }, canMint: () => boolean): PairPolicy {
  const posture = (): Posture => (config?.single(federationPairingTopic)?.default_posture as Posture | undefined) ?? defaults.posture;
  return {
    posture,
    accepts: () => canMint() && (posture() === 'open' || posture() === 'pair-then-ask'),
    approval: () => (posture() === 'open' ? 'auto' : 'manual'),
    scopes: () => ['federation:sync', 'federation:subscribe', ...((config?.single(federationPairingTopic)?.read_scopes as string[] | undefined) ?? defaults.readScopes)],
  };
}
