/**
 * Capability flags (spec §2.8): additive, true only when the feature works end
 * to end; absence means unsupported. Plugins set the flags of what they serve.
 */
import { token } from '../di/token.js';

export class CapabilityFlags {
  private readonly flags = new Map<string, boolean>();

  set(name: string, enabled: boolean): void {
    this.flags.set(name, enabled);
  }

  snapshot(): Record<string, boolean> {
    return Object.fromEntries([...this.flags.entries()].sort(([a], [b]) => (a < b ? -1 : 1)));
  }
}

export const CapabilityFlagsToken = token<CapabilityFlags>('core.CapabilityFlags');
