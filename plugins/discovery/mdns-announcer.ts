/**
 * The `_loom._tcp.local` announcer (off by default): bonjour-service
 * publishes PTR, SRV, TXT and A/AAAA with RFC 6762's TTLs, announces at
 * start and again at growing intervals, answers queries, and sends the
 * goodbye (TTL 0) when the server stops. The TXT says who this is
 * (txt-record.ts); peers believe it only once the manifest behind `url` verifies.
 */
import { Bonjour, type Service } from 'bonjour-service';
import type { Logger } from '../../core/plugin/logger.js';
import type { DiscoveryOptions } from './options.js';
import { encodeTxt, SERVICE_PROTOCOL, SERVICE_TYPE, type Advertisement } from './txt-record.js';

export interface AnnouncerStatus {
  readonly enabled: boolean;
  readonly announcing: boolean;
  readonly instance: string | null;
  readonly endpoint: string | null;
  /** Why it does not announce, else null. */
  readonly error: string | null;
}

export class MdnsAnnouncer {
  private bonjour: Bonjour | null = null;
  private service: Service | null = null;
  private error: string | null = null;

  constructor(
    private readonly options: DiscoveryOptions,
    private readonly instance: string,
    private readonly advertisement: () => Advertisement,
    private readonly log: Logger,
  ) {}

  start(): void {
    if (!this.options.announce || this.bonjour) return;
    const endpoint = this.options.endpoint;
    if (endpoint === null) {
      this.error = 'announcing needs the URL peers reach this instance at (LOOM_PUBLIC_URL, or the discovery option endpoint)';
      this.log.log('warn', 'mdns announcer off', { error: this.error });
      return;
    }
    const url = new URL(endpoint);
    const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
    const failed = (error: unknown) => {
      this.error = error instanceof Error ? error.message : String(error);
      this.log.log('warn', 'mdns announcer error', { error: this.error });
    };
    const bonjour = new Bonjour({ multicast: this.options.multicast, ip: this.options.address, port: this.options.port, ...(this.options.interface ? { interface: this.options.interface } : {}), reuseAddr: true } as never, failed);
    // The socket's own errors (a port it may not bind) would otherwise be thrown by an EventEmitter nobody listens to.
    (bonjour as unknown as { server: { mdns: NodeJS.EventEmitter } }).server.mdns.on('error', failed);
    this.bonjour = bonjour;
    // Probing asks the group whether the name is taken; a unicast harness has no group to ask.
    // Bound to every address: no one URL is right for every peer, so TXT names none and peers use the A record and SRV port.
    const wildcard = url.hostname === '0.0.0.0' || url.hostname === '[::]';
    this.service = bonjour.publish({ name: this.instance, type: SERVICE_TYPE, protocol: SERVICE_PROTOCOL, port, txt: encodeTxt({ ...this.advertisement(), endpoint: wildcard ? null : endpoint }), probe: this.options.multicast, disableIPv6: true });
  }

  status(): AnnouncerStatus {
    return { enabled: this.options.announce, announcing: this.service?.published === true, instance: this.options.announce ? this.instance : null, endpoint: this.options.announce ? this.options.endpoint : null, error: this.error };
  }

  /** Sends the goodbye, then closes the socket. */
  async stop(): Promise<void> {
    const bonjour = this.bonjour;
    this.bonjour = null;
    this.service = null;
    if (!bonjour) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 1000);
      bonjour.unpublishAll(() => {
        clearTimeout(timer);
        resolve();
      });
    });
    await new Promise<void>((resolve) => bonjour.destroy(() => resolve()));
  }
}
