/**
 * The auth plugin's operations on credentials: create and revoke service
 * accounts, mint and revoke tokens. Every change is a record on the auth
 * thread written by the plugin (SYSTEM, via the engine door), so accounts,
 * token hashes and revocations are facts in the log and survive restarts on
 * any driver. Writes are serialised (across the servers sharing a log too):
 * the plugin's actor has one clock on the thread, and the fold is current as soon as each write resolves.
 */
import { randomBytes } from 'node:crypto';
import { LoomError } from '../../core/errors/loom-error.js';
import { SYSTEM } from '../../core/access/caller.js';
import type { LogCriticalSection } from '../../core/engine/log-critical-section.js';
import type { RecordWriter } from '../../core/engine/record-writer.js';
import type { JsonObject } from '../../core/records/json.js';
import type { OwnFold } from '../../core/plugin/own-fold.js';
import { AUTH_ACTOR, AUTH_THREAD, KIND_REVOCATION, KIND_SERVICE_ACCOUNT, KIND_TOKEN } from './auth-thread.js';
import { formatBearer, mintSecret, tokenIdOf } from './bearer-token.js';
import type { CredentialsState, ServiceAccount, TokenEntry } from './credentials-fold.js';
import { token } from '../../core/di/token.js';

export interface NewServiceAccount {
  readonly id?: string;
  readonly displayName: string;
  readonly scopes: readonly string[];
  readonly actors: readonly string[];
  readonly namespace: string;
  /** Who asked (a DID), recorded as `by`. */
  readonly by: string | null;
}

export interface NewToken {
  readonly serviceAccountId: string;
  readonly envTag: string;
  /** The client's token id (bootstrap) or null to mint a secret here. */
  readonly tokenId: string | null;
  readonly createdAt?: string;
  readonly expiresAt?: string | null;
  readonly by: string | null;
  /** The grant the token is parented to (spec §5.4 rule 9); null for a legacy credential. */
  readonly grantId?: string | null;
  /** Scopes snapshotted on the token; the account's by default. */
  readonly scopes?: readonly string[];
  /** DIDs the token may write as; the account's by default. */
  readonly actors?: readonly string[];
  /** How it was issued (bootstrap, mint, rotate, invite, grant, adopt, recredential). */
  readonly via?: string;
}

/** What a transaction may do: append to the auth thread, with the fold current after each write. */
export interface AuthWriter {
  state(): CredentialsState;
  write(body: Record<string, unknown>, parents?: readonly string[]): Promise<string>;
  createAccount(input: NewServiceAccount & { did?: string }): Promise<ServiceAccount>;
  mint(input: NewToken): Promise<{ entry: TokenEntry; bearer: string | null }>;
}

export class CredentialService {
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly writer: RecordWriter,
    /** The auth plugin's own credentials fold. */
    private readonly fold: Pick<OwnFold<CredentialsState>, 'state'>,
    /**
     * Where servers share the log, the store's lock around every write (and
     * the fold caught up once it is held): a recovery code is then spent once
     * across servers, and the plugin's clock on the thread never collides.
     */
    private readonly section: Pick<LogCriticalSection, 'run'> | null = null,
  ) {}

  state(): CredentialsState {
    return this.fold.state();
  }

  account(id: string): ServiceAccount | undefined {
    return this.state().accounts.get(id);
  }

  accounts(): ServiceAccount[] {
    return [...this.state().accounts.values()];
  }

  tokensOf(serviceAccountId: string): TokenEntry[] {
    return [...this.state().tokens.values()].filter((t) => t.service_account_id === serviceAccountId);
  }

  /** Runs writes one at a time, in order (across servers too, with a shared log). */
  private serial<T>(work: () => Promise<T>): Promise<T> {
    const section = this.section;
    const guarded = section ? () => section.run('auth.credentials', work) : work;
    const run = this.queue.then(guarded, guarded);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /**
   * Runs `work` alone among the plugin's writes. The records it writes are
   * not one atomic batch: each is durable when its write resolves, so a
   * transaction orders its records to leave a harmless state if cut short.
   */
  transact<T>(work: (tx: AuthWriter) => Promise<T>): Promise<T> {
    return this.serial(() =>
      work({
        state: () => this.state(),
        write: (body, parents) => this.write(body, parents),
        createAccount: (input) => this.createUnqueued(input),
        mint: (input) => this.mintUnqueued(input),
      }),
    );
  }

  private async write(body: Record<string, unknown>, parents: readonly string[] = []): Promise<string> {
    const { stored } = await this.writer.appendAs(SYSTEM, { thread: AUTH_THREAD, actor: AUTH_ACTOR, act: 'LEARN', body: body as JsonObject, parents });
    return stored.record.id;
  }

  /** A fresh account id: `sa_` + 20 random base32 characters. */
  static newAccountId(): string {
    const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';
    return 'sa_' + Array.from(randomBytes(20), (b) => alphabet[b & 31]).join('');
  }

  createServiceAccount(input: NewServiceAccount, guard?: (state: CredentialsState) => void): Promise<ServiceAccount> {
    return this.serial(async () => {
      guard?.(this.state());
      return this.createUnqueued(input);
    });
  }

  private async createUnqueued(input: NewServiceAccount & { did?: string }): Promise<ServiceAccount> {
    {
      const id = input.id ?? CredentialService.newAccountId();
      if (this.state().accounts.has(id)) throw new LoomError('INVALID_SHAPE', `service account ${id} already exists; choose another id`);
      await this.write({
        kind: KIND_SERVICE_ACCOUNT,
        service_account_id: id,
        display_name: input.displayName,
        did: input.did ?? `did:sync:system:${id}`,
        scopes: [...input.scopes],
        actors: [...input.actors],
        account_namespace: input.namespace,
        created_at: new Date().toISOString(),
        by: input.by,
      });
      return this.state().accounts.get(id)!;
    }
  }

  /**
   * Mints a token for a live account. With `tokenId` null a secret is minted
   * here and the bearer returned once; otherwise the client holds the secret.
   */
  mintToken(input: NewToken): Promise<{ entry: TokenEntry; bearer: string | null }> {
    return this.serial(() => this.mintUnqueued(input));
  }

  private async mintUnqueued(input: NewToken): Promise<{ entry: TokenEntry; bearer: string | null }> {
    const account = this.state().accounts.get(input.serviceAccountId);
    if (!account) throw new LoomError('NOT_FOUND', `no service account ${input.serviceAccountId}`);
    if (!account.active) throw new LoomError('SERVICE_ACCOUNT_REVOKED', `service account ${account.id} is revoked; no token can be minted for it`);
    const secret = input.tokenId === null ? mintSecret() : null;
    const tokenId = input.tokenId ?? tokenIdOf(secret!);
    if (this.state().tokens.has(tokenId)) throw new LoomError('INVALID_SHAPE', 'with_token.token_id: this token id is already in use; generate a new secret');
    await this.write({
      kind: KIND_TOKEN,
      token_id: tokenId,
      service_account_id: account.id,
      env_tag: input.envTag,
      scopes: [...(input.scopes ?? account.scopes)],
      actors: [...(input.actors ?? account.actors)],
      created_at: input.createdAt ?? new Date().toISOString(),
      expires_at: input.expiresAt ?? null,
      by: input.by,
      via: input.via ?? 'mint',
      ...(input.grantId ? { grant_id: input.grantId } : {}),
    });
    const entry = this.state().tokens.get(tokenId);
    if (!entry) throw new LoomError('INTERNAL', 'the token record did not come into force');
    return { entry, bearer: secret === null ? null : formatBearer(input.envTag, account.id, secret) };
  }

  /** Mints the new token first, then revokes the account's previous ones (spec §3). */
  rotate(serviceAccountId: string, envTag: string, by: string | null): Promise<{ entry: TokenEntry; bearer: string }> {
    return this.serial(async () => {
      const previous = this.tokensOf(serviceAccountId).filter((t) => !t.revoked);
      // A member's holder account stays under its grant: the new token inherits the parent the old ones had.
      const grantId = previous.map((t) => t.grant_id).find((id) => id !== null) ?? null;
      const minted = await this.mintUnqueued({ serviceAccountId, envTag, tokenId: null, by, grantId, via: 'rotate' });
      for (const old of previous) {
        await this.write({ kind: KIND_REVOCATION, service_account_id: serviceAccountId, token_id: old.token_id, reason: 'rotated', revoked_at: new Date().toISOString(), by });
      }
      return { entry: minted.entry, bearer: minted.bearer! };
    });
  }

  /** Revokes an account and with it every token; idempotent. */
  revokeAccount(serviceAccountId: string, by: string | null, note?: string): Promise<ServiceAccount> {
    return this.serial(async () => {
      const account = this.state().accounts.get(serviceAccountId);
      if (!account) throw new LoomError('NOT_FOUND', `no service account ${serviceAccountId}`);
      if (account.active) {
        await this.write({
          kind: KIND_REVOCATION,
          service_account_id: serviceAccountId,
          reason: 'revoked',
          revoked_at: new Date().toISOString(),
          by,
          ...(note ? { note } : {}),
        });
      }
      return this.state().accounts.get(serviceAccountId)!;
    });
  }
}

export const CredentialServiceToken = token<CredentialService>('auth.CredentialService');
