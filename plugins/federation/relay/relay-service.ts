/** The relay's state as the routes see it: the mailboxes this instance serves, the receiver check, the status view. */
import { token } from '../../../core/di/token.js';
import { LoomError } from '../../../core/errors/loom-error.js';
import type { MailboxLimits, MailboxStore } from './mailbox-store.js';
import { verifyMailboxProof } from './mailbox-proof.js';
import type { RelaySettings } from './relay-config.js';
import type { RelayInbox } from './relay-inbox.js';
import type { RelaySender } from './relay-sender.js';

export class RelayService {
  constructor(
    readonly mailboxes: MailboxStore,
    private readonly settings: RelaySettings,
    private readonly sender: RelaySender,
    private readonly inbox: RelayInbox,
    private readonly now: () => number,
  ) {}

  /** The cap and TTL in force; MAILBOX_DISABLED when this instance serves no mailboxes. */
  servingLimits(): MailboxLimits {
    const serving = this.settings.serving();
    if (!serving.serve) throw new LoomError('MAILBOX_DISABLED', 'this instance serves no relay mailboxes (its operator turns them on with the federation.relay_mailbox record, serve: true)');
    return { maxEnvelopes: serving.maxEnvelopes, ttlMs: serving.ttlMs };
  }

  /** Only the receiver itself reads or acks its mailbox. */
  authenticate(headers: Readonly<Record<string, string | undefined>>, method: string, path: string, body: unknown, mailboxDid: string): void {
    const proof = verifyMailboxProof(headers, method, path, body, this.now());
    if (!proof.ok) throw new LoomError('MAILBOX_AUTH_INVALID', proof.reason);
    if (proof.did !== mailboxDid) throw new LoomError('MAILBOX_NOT_YOURS', `the request is signed by ${proof.did}; the mailbox of ${mailboxDid} is served only to ${mailboxDid}`);
  }

  status(): Record<string, unknown> {
    const serving = this.settings.serving();
    const inbox = this.inbox.view();
    return {
      object: 'federation_relay',
      relays: this.settings.relays(),
      sending: this.sender.view(),
      receiving: inbox.receiving,
      rejected: inbox.rejected,
      serving: { enabled: serving.serve, max_envelopes: serving.maxEnvelopes, ttl_seconds: serving.ttlMs / 1000, mailboxes: this.mailboxes.stats() },
    };
  }
}

export const RelayServiceToken = token<RelayService>('federation.RelayService');
