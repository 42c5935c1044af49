/** What GET /v1/discovery/mdns reads: the listener's table and status, the announcer's status. */
import { token } from '../../core/di/token.js';
import type { AnnouncerStatus } from './mdns-announcer.js';
import type { ListenerStatus } from './mdns-listener.js';
import type { PeerView } from './peer-table.js';

export interface MdnsDiscovery {
  readonly peers: () => PeerView[];
  readonly listener: () => ListenerStatus;
  readonly announcer: () => AnnouncerStatus;
}

export const MdnsDiscoveryToken = token<MdnsDiscovery>('discovery.Mdns');
