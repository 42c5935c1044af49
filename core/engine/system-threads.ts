/**
 * The one rule for which threads are system threads: the reserved threads of
 * §2.3 and the control threads plugins declare (PluginScope.systemThread).
 * Folds over coordination work (`ignoresSystemThreads`) and log consumers
 * (unless they opt in) skip them; nothing else decides it.
 */
import { isReservedThread } from '../records/reserved-threads.js';

export class SystemThreads {
  private readonly declared = new Set<string>();
  private frozen = false;

  /** Declares a plugin's control thread; refused once the engine has started. */
  declare(thread: string): void {
    if (this.frozen) throw new Error(`system thread ${thread} declared after the engine started`);
    this.declared.add(thread);
  }

  freeze(): void {
    this.frozen = true;
  }

  has(thread: string): boolean {
    return isReservedThread(thread) || this.declared.has(thread);
  }

  /** The plugins' declared threads (the reserved ones are RESERVED_THREADS). */
  ids(): string[] {
    return [...this.declared];
  }
}
