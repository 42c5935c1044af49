/**
 * A lease as a PostgreSQL session advisory lock on a connection of its own:
 * held while that session lives, so a holder that dies (kill -9, a lost
 * network) loses it as soon as the server notices the closed connection,
 * and a waiting process takes it at its next try (`checkMs`). A holder
 * checks its connection every `checkMs` too, and reports the loss the
 * moment a check fails, before another process can have taken over.
 */
import pg from 'pg';
import type { StoreLease } from '../contract/record-store.js';

export class AdvisoryLease implements StoreLease {
  private client: pg.Client | null = null;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private _held = false;
  private busy = false;

  constructor(
    private readonly config: pg.ClientConfig,
    private readonly key: string,
    private readonly checkMs: number,
    private readonly onChange: (held: boolean) => void,
    private readonly onReleased: () => void,
  ) {}

  get held(): boolean {
    return this._held;
  }

  start(): void {
    void this.tick();
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.tick(), this.checkMs);
    this.timer.unref();
  }

  private setHeld(held: boolean): void {
    if (held === this._held) return;
    this._held = held;
    try {
      this.onChange(held);
    } catch {
      // a listener's failure must not stop the lease
    }
  }

  private async connection(): Promise<pg.Client> {
    if (this.client) return this.client;
    const client = new pg.Client(this.config);
    client.on('error', () => undefined);
    client.on('end', () => {
      if (this.client === client) {
        this.client = null;
        this.setHeld(false);
      }
    });
    await client.connect();
    this.client = client;
    return client;
  }

  private async tick(): Promise<void> {
    if (this.stopped || this.busy) return;
    this.busy = true;
    try {
      const client = await this.connection();
      if (this._held) await client.query('SELECT 1');
      else {
        const { rows } = await client.query<{ taken: boolean }>('SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS taken', [this.key]);
        if (this.stopped) return;
        this.setHeld(rows[0]!.taken);
      }
    } catch {
      const client = this.client;
      this.client = null;
      this.setHeld(false);
      await client?.end().catch(() => undefined);
    } finally {
      this.busy = false;
      this.schedule();
    }
  }

  async release(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    const client = this.client;
    this.client = null;
    // The holder hears it has lost the lease before the lock is freed, so
    // no other process can act as holder while this one still believes it is.
    this.setHeld(false);
    // Ending the session releases the lock.
    await client?.end().catch(() => undefined);
    this.onReleased();
  }
}
