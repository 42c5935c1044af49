/**
 * Schemas of the directory routes. The operation schemas document the body
 * (OpenAPI, SDK types); the routes validate with `bodyValidation: 'handler'`,
 * so the one validator is parseOperation (directory-operation.ts), which the
 * gate, the fold and the offline verifier also run, and each refusal carries
 * its own DIRECTORY_* code.
 */
import { Type } from 'typebox';
import { HANDLE_PATTERN, MAX_ROTATION_KEYS, MAX_SERVICES, MAX_VERIFICATION_METHODS, OP_TYPE, OPERATION_MAX_BYTES, REVOKE_TYPE } from '../directory-operation.js';

const DidKey = Type.String({ pattern: '^did:key:z', description: 'An Ed25519 did:key.' });
const Hash = Type.String({ pattern: '^[0-9a-f]{64}$', description: 'SHA-256 (64 hex) of an operation\'s canonical JSON.' });
const Sig = Type.String({ pattern: '^[A-Za-z0-9+/]{85}[AQgw]==$', description: 'Ed25519 over the canonical JSON of the operation without sig, by a current rotation key; canonical standard base64.' });

export const SyncOpSchema = Type.Object(
  {
    type: Type.Literal(OP_TYPE),
    rotation_keys: Type.Array(DidKey, { minItems: 1, maxItems: MAX_ROTATION_KEYS, description: 'Keys that may sign the next operation, highest priority first.' }),
    verification_methods: Type.Record(Type.String({ pattern: '^[a-z][a-z0-9_-]{0,31}$' }), DidKey, { maxProperties: MAX_VERIFICATION_METHODS }),
    services: Type.Record(Type.String({ pattern: '^[a-z][a-z0-9_-]{0,31}$' }), Type.Object({ type: Type.String(), endpoint: Type.String() }, { additionalProperties: false }), { maxProperties: MAX_SERVICES }),
    handle: Type.Union([Type.String({ pattern: HANDLE_PATTERN.source }), Type.Null()]),
    prev: Type.Union([Hash, Type.Null()], { description: 'null for a genesis; else the hash of the head.' }),
    sig: Sig,
  },
  { additionalProperties: false, $id: 'DirectorySyncOp', description: `Creates (prev null) or replaces an identity's state. At most ${OPERATION_MAX_BYTES} bytes of canonical JSON.` },
);

export const SyncRevokeSchema = Type.Object({ type: Type.Literal(REVOKE_TYPE), prev: Hash, sig: Sig }, { additionalProperties: false, $id: 'DirectorySyncRevoke', description: 'Ends an identity for good.' });

export const DirectoryOperationSchema = Type.Union([SyncOpSchema, SyncRevokeSchema], { $id: 'DirectoryOperation' });

export const DirectoryReceiptSchema = Type.Object(
  {
    object: Type.Literal('directory_receipt'),
    did: Type.String(),
    hash: Hash,
    record_id: Type.String(),
    state: Type.Union([Type.Literal('active'), Type.Literal('revoked')]),
    handle: Type.Union([Type.String(), Type.Null()]),
  },
  { additionalProperties: false, $id: 'DirectoryReceipt' },
);

export const DirectoryOperationsSchema = Type.Object(
  {
    object: Type.Literal('directory_operations'),
    did: Type.String(),
    state: Type.Union([Type.Literal('active'), Type.Literal('revoked')]),
    operations: Type.Array(Type.Object({ hash: Hash, operation: DirectoryOperationSchema }, { additionalProperties: false })),
  },
  { additionalProperties: false, $id: 'DirectoryOperations' },
);

export const DirectoryHandleSchema = Type.Object(
  { object: Type.Literal('directory_handle'), handle: Type.String(), did: Type.String(), hash: Type.String() },
  { additionalProperties: false, $id: 'DirectoryHandle' },
);

export const SyncDidDocumentSchema = Type.Object(
  {
    '@context': Type.Array(Type.String()),
    id: Type.String(),
    alsoKnownAs: Type.Array(Type.String()),
    verificationMethod: Type.Array(Type.Object({ id: Type.String(), type: Type.Literal('Multikey'), controller: Type.String(), publicKeyMultibase: Type.String() }, { additionalProperties: false })),
    service: Type.Array(Type.Object({ id: Type.String(), type: Type.String(), serviceEndpoint: Type.String() }, { additionalProperties: false })),
  },
  { additionalProperties: false, $id: 'SyncDidDocument' },
);

export const DidHashParams = Type.Object({ hash: Type.String({ pattern: '^[a-z2-7]{52}$', description: 'The identifier after did:sync:.' }) }, { additionalProperties: false });
export const HandleParams = Type.Object({ handle: Type.String({ minLength: 1, maxLength: 100 }) }, { additionalProperties: false });
