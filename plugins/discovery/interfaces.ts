/**
 * The interfaces the listener uses, as multicast-dns joins them: the one
 * configured, else the first IPv4 address of every interface. Each says
 * whether the kernel flags it MULTICAST (Linux: /sys/class/net/<if>/flags,
 * IFF_MULTICAST 0x1000; null where that cannot be read), because a group
 * joined on an interface without it hears nothing (a container's loopback).
 */
import { readFileSync } from 'node:fs';
import { networkInterfaces } from 'node:os';

export interface ListenInterface {
  readonly name: string;
  readonly address: string;
  readonly internal: boolean;
  readonly multicast: boolean | null;
}

const IFF_MULTICAST = 0x1000;

export function multicastFlag(name: string): boolean | null {
  try {
    return (Number.parseInt(readFileSync(`/sys/class/net/${name}/flags`, 'utf8').trim(), 16) & IFF_MULTICAST) !== 0;
  } catch {
    return null;
  }
}

export function listenInterfaces(only: string | null): ListenInterface[] {
  const out: ListenInterface[] = [];
  for (const [name, addresses] of Object.entries(networkInterfaces())) {
    const v4 = (addresses ?? []).filter((a) => a.family === 'IPv4' && (only === null || a.address === only));
    const first = v4[0];
    if (first) out.push({ name, address: first.address, internal: first.internal, multicast: multicastFlag(name) });
  }
  if (only !== null && out.length === 0) out.push({ name: 'unknown', address: only, internal: false, multicast: null });
  return out;
}
