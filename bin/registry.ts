/**
 * Every `loom` command, in the order `loom --help` lists them: the one list
 * bin/loom.ts dispatches on and the help text is made from. Each entry loads
 * its module only when run (or when the full help is asked for): the
 * server's modules (drivers, plugins, Hapi) made every client command take
 * about a second longer when loaded eagerly.
 */
import type { Command } from '../command/define-command.js';

export interface CommandEntry {
  readonly name: string;
  load(): Promise<Command>;
}

export const COMMANDS: readonly CommandEntry[] = [
  { name: 'serve', load: async () => (await import('../server/commands/serve.js')).serve },
  { name: 'bootstrap', load: async () => (await import('../cli/commands/auth/bootstrap.js')).bootstrap },
  { name: 'doctor', load: async () => (await import('../cli/commands/doctor.js')).doctor },
  { name: 'whoami', load: async () => (await import('../cli/commands/auth/whoami.js')).whoami },
  { name: 'sa', load: async () => (await import('../cli/commands/auth/service-account.js')).sa },
  { name: 'invite', load: async () => (await import('../cli/commands/auth/invite.js')).invite },
  { name: 'members', load: async () => (await import('../cli/commands/auth/members.js')).members },
  { name: 'grant', load: async () => (await import('../cli/commands/auth/grant.js')).grant },
  { name: 'self', load: async () => (await import('../cli/commands/auth/self.js')).self },
  { name: 'recover', load: async () => (await import('../cli/commands/auth/self.js')).recover },
  { name: 'fleet', load: async () => (await import('../cli/commands/fleet/fleet.js')).fleet },
  { name: 'engine', load: async () => (await import('../cli/commands/rules/engine.js')).engine },
  { name: 'emit', load: async () => (await import('../cli/commands/ledger/emit.js')).emit },
  { name: 'thread', load: async () => (await import('../cli/commands/ledger/thread.js')).thread },
  { name: 'query', load: async () => (await import('../cli/commands/ledger/query.js')).query },
  { name: 'namespace', load: async () => (await import('../cli/commands/ledger/namespace.js')).namespace },
  { name: 'fold', load: async () => (await import('../cli/commands/folds/fold.js')).fold },
  { name: 'trust', load: async () => (await import('../cli/commands/trust/trust.js')).trust },
  { name: 'actors', load: async () => (await import('../cli/commands/actors/actors.js')).actors },
  { name: 'memories', load: async () => (await import('../cli/commands/members/memories.js')).memories },
  { name: 'graph', load: async () => (await import('../cli/commands/graph/graph.js')).graph },
  { name: 'data', load: async () => (await import('../cli/commands/data-plane/data.js')).data },
  { name: 'search', load: async () => (await import('../cli/commands/search/search.js')).search },
  { name: 'find', load: async () => (await import('../cli/commands/search/search.js')).find },
  { name: 'embed', load: async () => (await import('../cli/commands/search/search.js')).embed },
  { name: 'embedding-provider', load: async () => (await import('../cli/commands/search/search.js')).embeddingProvider },
  { name: 'export', load: async () => (await import('../cli/commands/portability/portability.js')).exportCommand },
  { name: 'import', load: async () => (await import('../cli/commands/portability/portability.js')).importCommand },
  { name: 'backup', load: async () => (await import('../cli/commands/portability/portability.js')).backupCommand },
  { name: 'restore', load: async () => (await import('../cli/commands/portability/portability.js')).restoreCommand },
  { name: 'sync', load: async () => (await import('../cli/commands/federation/sync.js')).sync },
  { name: 'consent', load: async () => (await import('../cli/commands/federation/consent.js')).consent },
  { name: 'evals', load: async () => (await import('../cli/commands/members/evals.js')).evals },
  { name: 'blueprint', load: async () => (await import('../cli/commands/members/blueprint.js')).blueprint },
  // ---- runs (read side) ----
  { name: 'runs', load: async () => (await import('../cli/commands/members/runs.js')).runs },
  // ---- end runs ----
  // ---- work loop (issue 33) ----
  { name: 'run', load: async () => (await import('../cli/commands/work/run.js')).run },
  { name: 'work', load: async () => (await import('../cli/commands/work/work.js')).work },
  // ---- end work loop ----
  // ---- decisions (issue 34) ----
  { name: 'decisions', load: async () => (await import('../cli/commands/work/decisions.js')).decisions },
  // ---- end decisions ----
  // ---- MCP (issue 34) ----
  { name: 'mcp', load: async () => (await import('../cli/commands/mcp/mcp.js')).mcp },
  // ---- end MCP ----
  // ---- federation handshake (issue 35) ----
  { name: 'federation', load: async () => (await import('../cli/commands/federation/federation.js')).federation },
  // ---- end federation handshake ----
  // ---- did:sync directory (issue 35) ----
  { name: 'directory', load: async () => (await import('../cli/commands/federation/directory.js')).directory },
  // ---- end did:sync directory ----
  // ---- mDNS discovery (issue 35) ----
  { name: 'discovery', load: async () => (await import('../cli/commands/discovery/discovery.js')).discovery },
  // ---- end mDNS discovery ----
];

export function findCommand(name: string): CommandEntry | undefined {
  return COMMANDS.find((entry) => entry.name === name);
}

/** Each distinct usage text once, in registry order (commands sharing one, like export/import, print it once). */
export async function usages(): Promise<string[]> {
  const seen: string[] = [];
  for (const entry of COMMANDS) {
    const { usage } = await entry.load();
    if (!seen.includes(usage)) seen.push(usage);
  }
  return seen;
}
