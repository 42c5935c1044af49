/**
 * A member's spend today against its daily cost cap, with the calls in
 * flight reserved: the check and the reservation happen in one synchronous
 * step, so of several concurrent runs of one member only one can take the
 * last cent. Spend on record comes from the run index (the turns' own
 * `cost_usd`); a reservation is released once its turn is recorded (and so
 * counted there) or the call failed.
 */
export interface Reservation {
  readonly tokens: number;
  readonly release: () => void;
}

export class DailySpend {
  private readonly reserved = new Map<string, number>();
  /** Callers waiting for an actor's reservations to settle. */
  private readonly waiting = new Map<string, Set<() => void>>();

  constructor(private readonly spentToday: (actor: string) => number) {}

  /** Reserved and not yet released, for an actor (tests, the preview). */
  inFlight(actor: string): number {
    return this.reserved.get(actor) ?? 0;
  }

  /**
   * `fit` is given the room left under the cap (null: no cap) and answers
   * the call's output tokens and the USD to reserve for it, or null when
   * nothing fits. When nothing fits only because other calls of the actor
   * hold reservations, waits for one to settle and asks again (their turns
   * may spend less than they reserved); null once nothing fits with none in
   * flight, or when `signal` fires.
   */
  async reserve(actor: string, cap: number | null, fit: (room: number | null) => { tokens: number; usd: number } | null, signal?: AbortSignal): Promise<Reservation | null> {
    for (;;) {
      const sized = fit(cap === null ? null : cap - this.spentToday(actor) - this.inFlight(actor));
      if (sized) return this.take(actor, sized);
      if (this.inFlight(actor) === 0 || signal?.aborted) return null;
      await this.settled(actor, signal);
    }
  }

  private settled(actor: string, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      let set = this.waiting.get(actor);
      if (!set) this.waiting.set(actor, (set = new Set()));
      const done = () => {
        set!.delete(done);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      set.add(done);
      signal?.addEventListener('abort', done, { once: true });
    });
  }

  private take(actor: string, sized: { tokens: number; usd: number }): Reservation {
    this.reserved.set(actor, this.inFlight(actor) + sized.usd);
    let released = false;
    return {
      tokens: sized.tokens,
      release: () => {
        if (released) return;
        released = true;
        const left = this.inFlight(actor) - sized.usd;
        if (left <= 1e-12) this.reserved.delete(actor);
        else this.reserved.set(actor, left);
        for (const wake of [...(this.waiting.get(actor) ?? [])]) wake();
      },
    };
  }
}
