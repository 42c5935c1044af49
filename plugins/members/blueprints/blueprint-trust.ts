/**
 * Who may hand the instance a blueprint (spec §4.7): the keys the operator
 * trusts to sign them (`blueprint_signers`, by did:key), and whether an
 * operator may materialize an unsigned one (`blueprints_allow_unsigned`,
 * off unless set). Both are configuration topics, so trusting a key or
 * lifting the flag is itself a record on th_engine_config, written by
 * whoever may write configuration.
 */
import { Type } from 'typebox';
import type { Caller } from '../../../core/access/caller.js';
import { defineConfigTopic, type Config } from '../../../core/folds/config/config-topic.js';
import { LoomError } from '../../../core/errors/loom-error.js';
import { publicKeyFromDidKey } from '../../federation/index.js';
import { isBounded } from '../definition-bounds.js';
import type { Blueprint, Admission } from './blueprint-format.js';
import { checkSignature } from './blueprint-signature.js';

export const blueprintSignersTopic = defineConfigTopic({
  topic: 'blueprint_signers',
  description:
    'Keys trusted to sign blueprints, by signer (an Ed25519 did:key, as `loom blueprint keygen` prints it); note is for people; trusted: false removes the key.',
  schema: Type.Object(
    {
      signer: Type.String({ minLength: 1, maxLength: 200 }),
      note: Type.Optional(Type.String({ maxLength: 500 })),
      trusted: Type.Optional(Type.Boolean()),
    },
    { additionalProperties: false },
  ),
  keyedBy: 'signer',
  normalise: (fields) => {
    if (publicKeyFromDidKey(fields.signer) === null) return `signer must be an Ed25519 did:key, not ${JSON.stringify(fields.signer)}`;
    if (fields.trusted === false) return null;
    return { signer: fields.signer, ...(fields.note !== undefined ? { note: fields.note } : {}) };
  },
});

export const blueprintsAllowUnsignedTopic = defineConfigTopic({
  topic: 'blueprints_allow_unsigned',
  description: 'enabled: true lets an operator (admin) materialize unsigned blueprints, still only with the reviewed plan hash. Off by default.',
  schema: Type.Object({ enabled: Type.Boolean() }, { additionalProperties: false }),
  keyedBy: 'single',
});

/**
 * Why this caller may materialize this blueprint, or 403 BLUEPRINT_UNSIGNED.
 * A signature that does not verify is refused even where unsigned blueprints
 * are allowed: a tampered file never installs by falling back to "unsigned"
 * (strip the signature to install it as unsigned, deliberately). A valid
 * signature by a key not trusted here counts as no signature.
 */
export function admission(caller: Caller, blueprint: Blueprint, config: Config): { admitted_as: Admission; signer: string | null } {
  const check = checkSignature(blueprint);
  if (check.state === 'invalid') throw new LoomError('BLUEPRINT_UNSIGNED', `the blueprint's signature by ${check.signer} does not verify over its content (tampered, or another key's); nothing written`);
  if (check.state === 'valid' && config.keyed(blueprintSignersTopic)[check.signer] !== undefined) return { admitted_as: 'trusted_signer', signer: check.signer };
  const why = check.state === 'valid' ? `its signer ${check.signer} is not in blueprint_signers` : 'it is unsigned';
  if (isBounded(caller)) throw new LoomError('BLUEPRINT_UNSIGNED', `${why}: only a blueprint signed by a trusted key may be materialized by this credential; nothing written`);
  if (config.single(blueprintsAllowUnsignedTopic)?.enabled !== true) {
    throw new LoomError('BLUEPRINT_UNSIGNED', `${why}, and this instance does not allow unsigned blueprints (configuration topic blueprints_allow_unsigned); nothing written`);
  }
  return { admitted_as: 'operator_unsigned', signer: check.state === 'valid' ? check.signer : null };
}
