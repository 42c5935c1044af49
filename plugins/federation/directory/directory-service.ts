/**
 * What the directory routes do: submit an operation (checked by the gate on
 * its way into the log, one at a time so two operations on one chain never
 * race past the same head), render a DID document from the fold, read an
 * identity's operations back through the record reader, resolve a handle.
 * Refusals write nothing.
 */
import { SYSTEM, type Caller } from '../../../core/access/caller.js';
import type { RecordReader } from '../../../core/engine/record-reader.js';
import type { RecordWriter } from '../../../core/engine/record-writer.js';
import { token } from '../../../core/di/token.js';
import { LoomError } from '../../../core/errors/loom-error.js';
import type { JsonObject } from '../../../core/records/json.js';
import { FEDERATION_PLUGIN } from '../sync-service.js';
import { DID_PREFIX, didFromGenesisHash, operationHash, parseOperation, REVOKE_TYPE, type DirectoryOperation } from './directory-operation.js';
import { directoryCall } from './directory-loom-error.js';
import type { DirectoryFoldState } from './directory-fold.js';
import { DIRECTORY_RECORD_KIND, DIRECTORY_THREAD } from './directory-thread.js';
import { renderDidDocument } from './render-did-document.js';
import type { Identity } from './directory-state.js';

export type DirectoryStep = 'genesis' | 'update' | 'revoke';

export interface DirectoryReceipt {
  readonly object: 'directory_receipt';
  readonly did: string;
  /** The operation's hash: the next operation's `prev`. */
  readonly hash: string;
  readonly record_id: string;
  readonly state: 'active' | 'revoked';
  readonly handle: string | null;
}

export interface DirectoryOperationsExport {
  readonly object: 'directory_operations';
  readonly did: string;
  readonly state: 'active' | 'revoked';
  readonly operations: Array<{ hash: string; operation: DirectoryOperation }>;
}

export interface DirectoryDeps {
  readonly writer: RecordWriter;
  readonly reader: RecordReader;
  readonly state: () => DirectoryFoldState;
  readonly enabled: () => boolean;
  /** Who writes the records: this instance. */
  readonly instanceDid: string;
}

export class DirectoryService {
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly deps: DirectoryDeps) {}

  private assertEnabled(): void {
    if (!this.deps.enabled()) throw new LoomError('DIRECTORY_DISABLED', 'the did:sync directory is off on this instance (configuration record directory_enabled)');
  }

  private identity(suffix: string): Identity {
    const identity = this.deps.state().directory.identities.get(DID_PREFIX + suffix);
    if (!identity) throw new LoomError('DIRECTORY_DID_NOT_FOUND', `no identity ${DID_PREFIX}${suffix} in this directory`);
    return identity;
  }

  /** One operation into the log; the gate refuses it with a typed code, or the fold holds it when this resolves. */
  submit(step: DirectoryStep, suffix: string | null, operation: JsonObject): Promise<DirectoryReceipt> {
    this.assertEnabled();
    const run = this.queue.then(() => this.write(step, suffix, operation));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async write(step: DirectoryStep, suffix: string | null, operation: JsonObject): Promise<DirectoryReceipt> {
    // Shape and syntax first (the gate checks them again, with the chain); then what the route says the operation must be.
    const parsed = directoryCall(() => parseOperation(operation));
    const isRevoke = parsed.type === REVOKE_TYPE;
    if (step === 'genesis' && (isRevoke || parsed.prev !== null)) throw new LoomError('DIRECTORY_OPERATION_INVALID', 'POST /directory/genesis takes a sync_op with prev null', { field: 'prev' });
    if (step === 'update' && (isRevoke || parsed.prev === null)) throw new LoomError('DIRECTORY_OPERATION_INVALID', 'POST /directory/update/{hash} takes a sync_op whose prev is the head (a revoke goes to /directory/revoke/{hash})', { field: 'type' });
    if (step === 'revoke' && !isRevoke) throw new LoomError('DIRECTORY_OPERATION_INVALID', 'POST /directory/revoke/{hash} takes a sync_revoke', { field: 'type' });
    // A genesis's identifier derives from it (the gate recomputes it and refuses a body naming another).
    const did = suffix === null ? didFromGenesisHash(operationHash(parsed)) : this.identity(suffix).did;
    const result = await this.deps.writer.appendAs(SYSTEM, {
      via: 'api',
      thread: DIRECTORY_THREAD,
      act: 'LEARN',
      actor: this.deps.instanceDid,
      plugin: FEDERATION_PLUGIN,
      body: { kind: DIRECTORY_RECORD_KIND, did, operation },
    });
    const identity = this.deps.state().directory.identities.get(did)!;
    return { object: 'directory_receipt', did, hash: identity.head, record_id: result.stored.record.id, state: identity.revoked ? 'revoked' : 'active', handle: identity.revoked ? null : identity.current.handle };
  }

  /** The DID document's canonical JSON; a revoked identity has none (410). */
  document(suffix: string): string {
    this.assertEnabled();
    const identity = this.identity(suffix);
    if (identity.revoked) throw new LoomError('DIRECTORY_REVOKED', `${identity.did} is revoked: it has no DID document`);
    return renderDidDocument(identity.did, identity.current);
  }

  /** The identity's operations in chain order, read from their records. */
  async operations(caller: Caller, suffix: string): Promise<DirectoryOperationsExport> {
    this.assertEnabled();
    const identity = this.identity(suffix);
    const ids = [...(this.deps.state().records.get(identity.did) ?? [])];
    const operations: DirectoryOperationsExport['operations'] = [];
    for (const id of ids) {
      const stored = await this.deps.reader.get(caller, id);
      // The records are the directory's own thread; a caller who may not read them gets no partial log.
      if (!stored) throw new LoomError('DIRECTORY_DID_NOT_FOUND', `no identity ${identity.did} visible to this caller`);
      const operation = (stored.record.body as Record<string, unknown>)['operation'] as DirectoryOperation;
      operations.push({ hash: operationHash(operation), operation });
    }
    return { object: 'directory_operations', did: identity.did, state: identity.revoked ? 'revoked' : 'active', operations };
  }

  handle(handle: string): { object: 'directory_handle'; handle: string; did: string; hash: string } {
    this.assertEnabled();
    const did = this.deps.state().directory.handles.get(handle);
    if (did === undefined) throw new LoomError('DIRECTORY_HANDLE_NOT_FOUND', `no live identity holds the handle ${handle}`);
    return { object: 'directory_handle', handle, did, hash: did.slice(DID_PREFIX.length) };
  }
}

export const DirectoryServiceToken = token<DirectoryService>('federation.DirectoryService');
