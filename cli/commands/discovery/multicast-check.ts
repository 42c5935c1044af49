/**
 * `loom doctor`'s multicast check: mDNS discovery hears nothing where no
 * interface can multicast (a container with only loopback, a Docker bridge
 * without the MULTICAST flag) or where the server's listener could not bind
 * 5353. Discovery is optional, so this warns and names what still works.
 * Linux reports the flag in /sys/class/net/<if>/flags (IFF_MULTICAST 0x1000).
 */
import { readFileSync } from 'node:fs';
import { networkInterfaces } from 'node:os';
import type { MdnsDiscovery } from '../../../sdk/index.js';
import { clientContext } from '../../kit/context.js';

export interface MulticastCheck {
  readonly check: string;
  readonly outcome: 'ok' | 'warn';
  readonly detail: string;
  readonly fix?: string;
}

const IFF_MULTICAST = 0x1000;
const STILL_WORKS = 'did:web (/.well-known/did.json), static pairs (loom federation pair <url>, loom sync) and the did:sync directory work without it';

function flag(name: string): boolean | null {
  try {
    return (Number.parseInt(readFileSync(`/sys/class/net/${name}/flags`, 'utf8').trim(), 16) & IFF_MULTICAST) !== 0;
  } catch {
    return null;
  }
}

/** This machine: the non-loopback IPv4 interfaces and whether each can multicast. */
export function localMulticastCheck(): MulticastCheck {
  const external = Object.entries(networkInterfaces()).flatMap(([name, addresses]) => ((addresses ?? []).some((a) => a.family === 'IPv4' && !a.internal) ? [{ name, multicast: flag(name) }] : []));
  const able = external.filter((i) => i.multicast !== false);
  if (able.length > 0) return { check: 'multicast', outcome: 'ok', detail: `mDNS can use ${able.map((i) => `${i.name}${i.multicast === null ? ' (flag unknown)' : ''}`).join(', ')}` };
  return {
    check: 'multicast',
    outcome: 'warn',
    detail: external.length === 0 ? 'multicast unavailable: no network interface but loopback, so mDNS discovery hears no peer' : `multicast unavailable: ${external.map((i) => i.name).join(', ')} lack the MULTICAST flag, so mDNS discovery hears no peer`,
    fix: `run on the host network (docker run --network host) or enable multicast on the interface; ${STILL_WORKS}`,
  };
}

/** The server's listener, when the server serves GET /v1/discovery/mdns to this token; null otherwise. */
export async function serverMulticastCheck(values: { url?: string; token?: string }): Promise<MulticastCheck | null> {
  const ctx = clientContext(values);
  const answer = await ctx.client.getDiscoveryMdns().catch(() => null);
  const body = answer?.data as MdnsDiscovery | undefined;
  if (!body) return null;
  const listener = body.listener;
  if (!listener.enabled) return { check: 'mdns listener', outcome: 'ok', detail: 'off on the server (--no-mdns)' };
  if (!listener.listening) return { check: 'mdns listener', outcome: 'warn', detail: `the server does not listen: ${listener.error ?? 'unknown reason'}`, fix: `free UDP port ${listener.port} or start the server with --no-mdns; ${STILL_WORKS}` };
  if (listener.multicast && !listener.interfaces.some((i) => !i.internal && i.multicast !== false)) {
    return { check: 'mdns listener', outcome: 'warn', detail: 'the server listens, but multicast is unavailable on its interfaces (loopback only, or no MULTICAST flag)', fix: STILL_WORKS };
  }
  return { check: 'mdns listener', outcome: 'ok', detail: `listening on ${listener.interfaces.map((i) => `${i.name} ${i.address}`).join(', ')}; ${body.data.length} peer(s) seen, ${body.data.filter((p) => p.verified).length} verified` };
}
