/**
 * The `_loom._tcp.local` listener: bonjour-service's Browser (PTR → SRV, TXT,
 * A/AAAA, goodbyes) over a multicast-dns socket this plugin opens itself, so
 * it can report the interfaces, run in unicast mode for tests, and refresh
 * `last_seen` when a peer announces the same records again (the Browser only
 * reports changes). The table expires entries on TTL; the listener checks
 * each peer's manifest (manifest-check.ts), a few at a time.
 */
import makeMdns from 'multicast-dns';
import { Browser, type Service } from 'bonjour-service';
import type { Logger } from '../../core/plugin/logger.js';
import { listenInterfaces, type ListenInterface } from './interfaces.js';
import type { CheckOutcome } from './manifest-check.js';
import type { DiscoveryOptions } from './options.js';
import type { DueCheck, PeerTable } from './peer-table.js';
import { decodeTxt, endpointOf, SERVICE_NAME, SERVICE_PROTOCOL, SERVICE_TYPE } from './txt-record.js';

/** Manifest checks in flight at once: a LAN announcing many peers cannot make this instance fetch them all at once. */
const MAX_CHECKS = 4;

export interface ListenerStatus {
  readonly enabled: boolean;
  readonly listening: boolean;
  readonly multicast: boolean;
  readonly address: string;
  readonly port: number;
  readonly interfaces: readonly ListenInterface[];
  /** Why it does not listen (the socket could not bind), else null. */
  readonly error: string | null;
  /** The last socket warning (a group that could not be joined on an interface), else null. */
  readonly warning: string | null;
  readonly peers_dropped: number;
}

type Mdns = ReturnType<typeof makeMdns>;

export class MdnsListener {
  private mdns: Mdns | null = null;
  private browser: Browser | null = null;
  private listening = false;
  private error: string | null = null;
  private warning: string | null = null;
  private inflight = 0;
  private queryTimer: NodeJS.Timeout | null = null;
  /** The TTL each instance was last announced with (see refresh). */
  private readonly ttls = new Map<string, number>();

  constructor(
    private readonly options: DiscoveryOptions,
    private readonly table: PeerTable,
    private readonly check: (endpoint: string, did: string) => Promise<CheckOutcome>,
    private readonly log: Logger,
  ) {}

  async start(): Promise<void> {
    if (!this.options.listen || this.mdns) return;
    const mdns = makeMdns({
      multicast: this.options.multicast,
      ip: this.options.address,
      port: this.options.port,
      ...(this.options.interface ? { interface: this.options.interface } : {}),
      reuseAddr: true,
    });
    this.mdns = mdns;
    const bound = await new Promise<string | null>((resolve) => {
      mdns.once('ready', () => resolve(null));
      mdns.once('error', (error: Error) => resolve(error.message));
    });
    if (bound !== null) {
      // Multicast is optional sugar: the server runs on without it and says why.
      this.error = bound;
      this.log.log('warn', 'mdns listener could not bind', { error: bound, port: this.options.port });
      mdns.destroy();
      this.mdns = null;
      return;
    }
    mdns.on('error', (error: Error) => (this.error = error.message));
    mdns.on('warning', (warning: Error) => (this.warning = warning.message));
    // Before the Browser's own listener: a re-announcement of known records refreshes them.
    mdns.on('response', (packet) => this.refresh(packet as { answers?: unknown[]; additionals?: unknown[] }));
    const browser = new Browser(mdns, { type: SERVICE_TYPE, protocol: SERVICE_PROTOCOL });
    browser.on('up', (service) => this.see(service));
    browser.on('srv-update', (service) => this.see(service));
    browser.on('txt-update', (service) => this.see(service));
    browser.on('down', (service) => {
      this.table.goodbye(service.fqdn);
      this.ttls.delete(service.fqdn);
    });
    this.browser = browser;
    this.listening = true;
    this.queryTimer = setInterval(() => browser.update(), this.options.queryIntervalMs);
    this.queryTimer.unref();
  }

  /** Expires entries whose TTL ran out (and forgets them in the Browser, so a new announcement is news) and starts due checks. */
  sweep(): void {
    for (const fqdn of this.table.expire()) {
      this.ttls.delete(fqdn);
      (this.browser as unknown as { removeService?: (fqdn: string) => void } | null)?.removeService?.(fqdn);
    }
    for (const due of this.table.takeDue()) this.runCheck(due);
  }

  status(): ListenerStatus {
    const unicast: ListenInterface[] = [{ name: 'unicast', address: this.options.address, internal: this.options.address.startsWith('127.'), multicast: false }];
    return {
      enabled: this.options.listen,
      listening: this.listening,
      multicast: this.options.multicast,
      address: this.options.address,
      port: this.options.port,
      interfaces: this.options.listen ? (this.options.multicast ? listenInterfaces(this.options.interface) : unicast) : [],
      error: this.error,
      warning: this.warning,
      peers_dropped: this.table.dropped,
    };
  }

  async stop(): Promise<void> {
    if (this.queryTimer) clearInterval(this.queryTimer);
    this.queryTimer = null;
    this.browser?.stop();
    this.browser = null;
    const mdns = this.mdns;
    this.mdns = null;
    this.listening = false;
    if (mdns) await new Promise<void>((resolve) => mdns.destroy(() => resolve()));
  }

  private see(service: Service): void {
    const ad = decodeTxt(service.txt);
    const address = service.addresses?.[0] ?? service.referer?.address ?? null;
    // Without a TXT url, the SRV target's address and port (still only a hint: the manifest decides).
    const endpoint = ad.endpoint ?? (address && service.port ? endpointOf(`http://${address.includes(':') ? `[${address}]` : address}:${service.port}`) : null);
    this.table.see({
      ...ad,
      endpoint,
      fqdn: service.fqdn,
      instance: service.name,
      addresses: [...(service.addresses ?? [])],
      ttlSeconds: this.ttls.get(service.fqdn) ?? service.ttl ?? 120,
    });
    this.sweep();
  }

  /**
   * A response's TTL for each instance it names: the smallest of its PTR and
   * SRV (RFC 6762 §10: 120 s for SRV, so a peer that vanished without a goodbye
   * is gone within two minutes, not the PTR's hours). Known entries live on.
   */
  private refresh(packet: { answers?: unknown[]; additionals?: unknown[] }): void {
    const ttls = new Map<string, number>();
    for (const record of [...(packet.answers ?? []), ...(packet.additionals ?? [])] as { type?: string; name?: string; ttl?: number; data?: unknown }[]) {
      if (typeof record.ttl !== 'number' || record.ttl <= 0 || typeof record.name !== 'string') continue;
      const fqdn = record.type === 'PTR' && record.name.toLowerCase() === SERVICE_NAME && typeof record.data === 'string' ? record.data : record.type === 'SRV' && record.name.toLowerCase().endsWith(`.${SERVICE_NAME}`) ? record.name : null;
      if (fqdn !== null) ttls.set(fqdn, Math.min(ttls.get(fqdn) ?? Infinity, record.ttl));
    }
    for (const [fqdn, ttl] of ttls) {
      if (!this.table.has(fqdn) && this.ttls.size >= this.options.maxPeers) continue;
      this.ttls.set(fqdn, ttl);
      this.table.refresh(fqdn, ttl);
    }
  }

  private runCheck(due: DueCheck): void {
    if (this.inflight >= MAX_CHECKS) {
      // Back to pending: the next sweep takes it.
      this.table.requeue(due);
      return;
    }
    this.inflight++;
    this.check(due.endpoint, due.did)
      .catch((): CheckOutcome => ({ ok: false, reason: 'check_failed' }))
      .then((outcome) => this.table.settle(due, outcome))
      .finally(() => {
        this.inflight--;
      });
  }
}
