/**
 * The changes-feed requests held open (continuous streams, long polls), by
 * the service account of their bearer. A bearer is checked once, when the
 * request starts; revoking a pair cuts its peer's open feeds at once, so not
 * one record crosses on a connection authenticated before the revocation.
 */
export class LiveFeeds {
  private readonly open = new Map<string, Set<AbortController>>();

  /** A signal that aborts with the request or when the account is cut; call `release` when the request ends. */
  hold(accountId: string | null, signal: AbortSignal): { signal: AbortSignal; release: () => void } {
    if (accountId === null) return { signal, release: () => {} };
    const controller = new AbortController();
    const set = this.open.get(accountId) ?? new Set();
    set.add(controller);
    this.open.set(accountId, set);
    return {
      signal: AbortSignal.any([signal, controller.signal]),
      release: () => {
        set.delete(controller);
        if (set.size === 0 && this.open.get(accountId) === set) this.open.delete(accountId);
      },
    };
  }

  /** Ends every held request of the account. */
  cut(accountId: string): number {
    const set = this.open.get(accountId);
    if (!set) return 0;
    this.open.delete(accountId);
    for (const controller of set) controller.abort();
    return set.size;
  }

  // ---- relay mailbox (issue 35): a peer holding a feed open is not silent ----
  isOpen(accountId: string): boolean {
    return (this.open.get(accountId)?.size ?? 0) > 0;
  }
  // ---- end relay mailbox ----
}
