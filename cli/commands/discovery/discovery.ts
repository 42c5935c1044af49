/**
 * `loom discovery list`: the peers a server heard announcing `_loom._tcp.local`
 * on its local network (GET /v1/discovery/mdns), whether each verified, and
 * whether the server listens at all and on which interfaces, so "nobody
 * there" and "cannot hear" read differently. Listing never pairs: pairing
 * stays `loom federation pair <endpoint>`.
 */
import { defineCommand, subcommand } from '../../../command/define-command.js';
import { CliError } from '../../../command/cli-error.js';
import type { MdnsDiscovery } from '../../../sdk/index.js';
import { clientContext, CLIENT_OPTIONS, print } from '../../kit/context.js';
import { textTable } from '../../kit/text-table.js';
import { federationCall } from '../federation/federation-call.js';

export const DISCOVERY_USAGE = `loom discovery list [--url …] [--token …] [--json]
  Peers found on the local network through mDNS (_loom._tcp.local), needs federation:manage. A peer
  is verified only once its signed federation manifest verified against the DID it advertises.
  Discovery never pairs: pair a verified peer with loom federation pair <endpoint>.`;

export function listenerLine(listener: MdnsDiscovery['listener']): string {
  if (!listener.enabled) return 'listener: off (loom serve --no-mdns or LOOM_MDNS=0)\n';
  if (!listener.listening) return `listener: not listening: ${listener.error ?? 'unknown reason'}\n`;
  const where = listener.interfaces.map((i) => `${i.name} ${i.address}${i.multicast === false && listener.multicast ? ' (no MULTICAST flag)' : ''}`).join(', ');
  return `listener: ${listener.multicast ? `multicast ${listener.address}:${listener.port}` : `unicast ${listener.address}:${listener.port}`} on ${where || 'no interface'}${listener.warning ? `; warning: ${listener.warning}` : ''}\n`;
}

function render(body: MdnsDiscovery): string {
  let text = listenerLine(body.listener);
  text += body.announcer.enabled ? `announcer: ${body.announcer.announcing ? `announcing ${body.announcer.instance}` : `not announcing: ${body.announcer.error ?? 'starting'}`}\n` : 'announcer: off (loom serve --mdns-announce turns it on)\n';
  if (body.data.length === 0) return text + 'no peers seen\n';
  const rows = body.data.map((peer) => [
    peer.instance,
    peer.verified ? 'yes' : `no (${peer.verification.state}${peer.verification.reason ? `: ${peer.verification.reason}` : ''})`,
    peer.did ?? '-',
    peer.endpoint ?? '-',
    peer.namespace ?? '-',
    peer.handle ?? '-',
    peer.last_seen,
  ]);
  return text + textTable(['instance', 'verified', 'did', 'endpoint', 'namespace', 'handle', 'last seen'], rows);
}

export const discovery = defineCommand({
  name: 'discovery',
  summary: 'peers found on the local network (mDNS)',
  usage: DISCOVERY_USAGE,
  json: true,
  bareIsHelp: true,
  unknownSubcommand: (sub) => `unknown subcommand "loom discovery ${sub}"\n${DISCOVERY_USAGE}`,
  subcommands: {
    list: subcommand({
      summary: 'the peers heard announcing _loom._tcp.local, and the listener state (federation:manage)',
      options: CLIENT_OPTIONS,
      run: async ({ values, positionals }) => {
        if (positionals.length !== 0) throw new CliError(`loom discovery list takes no arguments\n${DISCOVERY_USAGE}`);
        const ctx = clientContext(values);
        const { data } = await federationCall(ctx, ctx.client.getDiscoveryMdns());
        print(ctx, data, () => render(data));
      },
    }),
  },
});
