/**
 * did:sync directory operations (spec §4.13; the design follows did:plc with
 * canonical JSON and Ed25519 in place of DAG-CBOR and secp256k1):
 * - `sync_op` creates an identity (`prev: null`, the genesis) or replaces its
 *   whole state (`prev`: the hash of the operation it follows): rotation keys,
 *   verification methods, services, handle;
 * - `sync_revoke` ends it for good.
 * Every operation is signed, Ed25519 over the canonical JSON of the operation
 * without `sig`, by a rotation key of the state it follows (a genesis by one
 * of its own). Its hash is the SHA-256 of its canonical JSON with `sig`; the
 * identifier is `did:sync:` + the unpadded lowercase base32 of the genesis
 * hash (52 characters), so an identity proves itself from its first
 * operation and nobody, the directory included, can choose it.
 * Validation is strict and total: the exact field set (no optional fields,
 * so one operation has one canonical form), every field's syntax, a size cap.
 * Pure: node:crypto and the record algebra only, so `loom directory verify`
 * runs the same code offline.
 */
import { createHash } from 'node:crypto';
import { base32nopad } from '@scure/base';
import { canonicalJson } from '../../../core/records/canonical-json.js';
import { publicKeyFromDidKey } from '../did-key.js';
import { verifyEd25519Fast } from '../ed25519.js';
import { DirectoryError } from './directory-error.js';

export const OP_TYPE = 'sync_op';
export const REVOKE_TYPE = 'sync_revoke';
/** Largest canonical JSON of one operation, in bytes (did:plc: 7,500 bytes of DAG-CBOR). */
export const OPERATION_MAX_BYTES = 4096;
export const MAX_ROTATION_KEYS = 5;
export const MAX_VERIFICATION_METHODS = 8;
export const MAX_SERVICES = 8;
export const DID_PREFIX = 'did:sync:';
/** The identifier's suffix: unpadded lowercase base32 of a SHA-256 (52 characters). */
export const DID_SUFFIX_PATTERN = /^[a-z2-7]{52}$/;
export const OPERATION_HASH_PATTERN = /^[0-9a-f]{64}$/;
/** DNS-like: lowercase labels of letters, digits and inner hyphens, 1–63 each, dot-separated, at most 100 characters. */
export const HANDLE_PATTERN = /^(?=.{1,100}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/;
/** Ids of verification methods and services: the DID document's `#fragment`. */
export const FRAGMENT_PATTERN = /^[a-z][a-z0-9_-]{0,31}$/;
export const SERVICE_TYPE_PATTERN = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;
const ENDPOINT_PATTERN = /^https?:\/\/[!-~]{1,500}$/;
/** Standard base64 of 64 bytes; canonical (the unused low bits of the last character zero) is checked by re-encoding. */
const SIGNATURE_PATTERN = /^[A-Za-z0-9+/]{85}[AQgw]==$/;

export interface ServiceEntry {
  readonly type: string;
  readonly endpoint: string;
}

export interface SyncOp {
  readonly type: typeof OP_TYPE;
  readonly rotation_keys: readonly string[];
  readonly verification_methods: Readonly<Record<string, string>>;
  readonly services: Readonly<Record<string, ServiceEntry>>;
  readonly handle: string | null;
  readonly prev: string | null;
  readonly sig: string;
}

export interface SyncRevoke {
  readonly type: typeof REVOKE_TYPE;
  readonly prev: string;
  readonly sig: string;
}

export type DirectoryOperation = SyncOp | SyncRevoke;
export type UnsignedOperation = Omit<SyncOp, 'sig'> | Omit<SyncRevoke, 'sig'>;

const OP_FIELDS = ['handle', 'prev', 'rotation_keys', 'services', 'sig', 'type', 'verification_methods'];
const REVOKE_FIELDS = ['prev', 'sig', 'type'];

const invalid = (field: string, message: string) => new DirectoryError('DIRECTORY_OPERATION_INVALID', `${field}: ${message}`, field);

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function exactFields(value: Record<string, unknown>, fields: readonly string[], where: string): void {
  const keys = Object.keys(value).sort();
  const missing = fields.filter((field) => !keys.includes(field));
  const extra = keys.filter((key) => !fields.includes(key));
  if (missing.length > 0 || extra.length > 0) {
    const parts = [missing.length ? `missing ${missing.join(', ')}` : '', extra.length ? `unexpected ${extra.join(', ')}` : ''].filter(Boolean);
    throw invalid(where, `exactly ${fields.join(', ')} (${parts.join('; ')})`);
  }
}

function didKeyField(value: unknown, field: string): string {
  if (typeof value !== 'string' || publicKeyFromDidKey(value) === null || value.includes('#')) throw invalid(field, 'an Ed25519 did:key (did:key:z6Mk…)');
  return value;
}

function checkSig(value: unknown): void {
  if (typeof value !== 'string' || !SIGNATURE_PATTERN.test(value) || Buffer.from(value, 'base64').toString('base64') !== value) {
    throw new DirectoryError('DIRECTORY_SIGNATURE_INVALID', 'sig: the canonical standard base64 of a 64-byte Ed25519 signature', 'sig');
  }
}

function checkPrev(value: unknown, genesisAllowed: boolean): void {
  if (value === null && genesisAllowed) return;
  if (typeof value !== 'string' || !OPERATION_HASH_PATTERN.test(value)) throw invalid('prev', genesisAllowed ? 'null (genesis) or the 64-hex hash of the operation this one follows' : 'the 64-hex hash of the operation this one follows');
}

function checkFragmentMap(value: unknown, field: string, max: number): Record<string, unknown> {
  if (!isPlainObject(value)) throw invalid(field, 'an object keyed by fragment id');
  const keys = Object.keys(value);
  if (keys.length > max) throw invalid(field, `at most ${max} entries`);
  for (const key of keys) if (!FRAGMENT_PATTERN.test(key)) throw invalid(`${field}.${key}`, `an id of ${FRAGMENT_PATTERN.source}`);
  return value;
}

/**
 * Checks an operation's shape, syntax and size (nothing that needs the log):
 * the operation, typed; a DirectoryError otherwise.
 */
export function parseOperation(value: unknown): DirectoryOperation {
  if (!isPlainObject(value)) throw invalid('operation', 'a JSON object');
  let text: string;
  try {
    text = canonicalJson(value);
  } catch (error) {
    throw invalid('operation', `not canonical JSON (${(error as Error).message})`);
  }
  if (Buffer.byteLength(text, 'utf8') > OPERATION_MAX_BYTES) throw new DirectoryError('DIRECTORY_OPERATION_TOO_LARGE', `operation: its canonical JSON is over ${OPERATION_MAX_BYTES} bytes`, 'operation');
  if (value['type'] === REVOKE_TYPE) {
    exactFields(value, REVOKE_FIELDS, 'operation');
    checkPrev(value['prev'], false);
    checkSig(value['sig']);
    return value as unknown as SyncRevoke;
  }
  if (value['type'] !== OP_TYPE) throw invalid('type', `${OP_TYPE} or ${REVOKE_TYPE}`);
  exactFields(value, OP_FIELDS, 'operation');
  const keys = value['rotation_keys'];
  if (!Array.isArray(keys) || keys.length < 1 || keys.length > MAX_ROTATION_KEYS) throw invalid('rotation_keys', `1 to ${MAX_ROTATION_KEYS} did:keys, highest priority first`);
  keys.forEach((key, index) => didKeyField(key, `rotation_keys[${index}]`));
  if (new Set(keys).size !== keys.length) throw invalid('rotation_keys', 'each key once');
  const methods = checkFragmentMap(value['verification_methods'], 'verification_methods', MAX_VERIFICATION_METHODS);
  for (const [id, key] of Object.entries(methods)) didKeyField(key, `verification_methods.${id}`);
  const services = checkFragmentMap(value['services'], 'services', MAX_SERVICES);
  for (const [id, service] of Object.entries(services)) {
    if (Object.prototype.hasOwnProperty.call(methods, id)) throw invalid(`services.${id}`, 'a service and a verification method share the fragment id');
    if (!isPlainObject(service)) throw invalid(`services.${id}`, 'an object {type, endpoint}');
    exactFields(service, ['endpoint', 'type'], `services.${id}`);
    if (typeof service['type'] !== 'string' || !SERVICE_TYPE_PATTERN.test(service['type'])) throw invalid(`services.${id}.type`, `a type of ${SERVICE_TYPE_PATTERN.source}`);
    const endpoint = service['endpoint'];
    if (typeof endpoint !== 'string' || !ENDPOINT_PATTERN.test(endpoint) || !URL.canParse(endpoint)) throw invalid(`services.${id}.endpoint`, 'an http(s) URL of printable ASCII, at most 508 characters');
  }
  const handle = value['handle'];
  if (handle !== null && (typeof handle !== 'string' || !HANDLE_PATTERN.test(handle))) throw invalid('handle', 'null or lowercase DNS-like labels (a-z, 0-9, inner hyphens; 1-63 each; at most 100 characters)');
  checkPrev(value['prev'], true);
  checkSig(value['sig']);
  return value as unknown as SyncOp;
}

/** The bytes a rotation key signs: the canonical JSON of the operation without `sig`. */
export function signingBytes(operation: UnsignedOperation | DirectoryOperation): Buffer {
  const { sig: _sig, ...unsigned } = operation as DirectoryOperation;
  return Buffer.from(canonicalJson(unsigned), 'utf8');
}

/** The operation's hash: SHA-256 (64 hex) of its canonical JSON, `sig` included. */
export function operationHash(operation: DirectoryOperation): string {
  return createHash('sha256').update(canonicalJson(operation), 'utf8').digest('hex');
}

/** `did:sync:` + the unpadded lowercase base32 of the genesis hash. */
export function didFromGenesisHash(hash: string): string {
  return DID_PREFIX + base32nopad.encode(Buffer.from(hash, 'hex')).toLowerCase();
}

/** The suffix of a did:sync identifier (the `{hash}` of the routes), or null. */
export function didSuffix(did: string): string | null {
  if (!did.startsWith(DID_PREFIX)) return null;
  const suffix = did.slice(DID_PREFIX.length);
  return DID_SUFFIX_PATTERN.test(suffix) ? suffix : null;
}

/** The index of the rotation key among `keys` whose signature the operation carries; a DirectoryError when none. */
export function verifySignature(operation: DirectoryOperation, keys: readonly string[]): number {
  const message = signingBytes(operation);
  const signature = Buffer.from(operation.sig, 'base64');
  for (let i = 0; i < keys.length; i++) {
    const publicKey = publicKeyFromDidKey(keys[i]!);
    if (publicKey && verifyEd25519Fast(publicKey, message, signature)) return i;
  }
  throw new DirectoryError('DIRECTORY_SIGNATURE_INVALID', `sig: signed by none of the ${keys.length} current rotation key(s)`, 'sig');
}
