/**
 * Facts plugins contribute to the discovery surfaces, read per request: the
 * auth plugin says which re-credential proofs /health accepts, federation
 * will say what it serves. One owner per key, so two plugins never fight
 * over a field; the route owning the surface decides where the facts go.
 */
import { token } from '../di/token.js';

/**
 * `health`: members of GET /health; `manifest`: the capabilities manifest;
 * `discovery`: sibling keys of the /.well-known/service envelope (the
 * federation manifest).
 */
export type DiscoverySurface = 'health' | 'manifest' | 'discovery';

export class DiscoveryFacts {
  private readonly facts = new Map<DiscoverySurface, Map<string, { owner: string; read: () => unknown }>>();

  describe(surface: DiscoverySurface, key: string, owner: string, read: () => unknown): void {
    let keys = this.facts.get(surface);
    if (!keys) this.facts.set(surface, (keys = new Map()));
    const existing = keys.get(key);
    if (existing) throw new Error(`plugin "${owner}" describes ${surface}.${key}, which plugin "${existing.owner}" already describes`);
    keys.set(key, { owner, read });
  }

  /** The current facts of a surface; a fact reading undefined is left out. */
  read(surface: DiscoverySurface): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const [key, { read }] of this.facts.get(surface) ?? []) {
      const value = read();
      if (value !== undefined) out[key] = value;
    }
    return out;
  }
}

export const DiscoveryFactsToken = token<DiscoveryFacts>('core.DiscoveryFacts');
