/**
 * Loads `members` member actors with `versions` definition versions each,
 * as the members plugin writes them (the instance's records on
 * th_actor_registry, each version parented to the last), through the
 * ingestor as a replay (the way an import brings history back), 1,000 at a time.
 */
import { SYSTEM } from '../../core/access/caller.js';
import type { Loom } from '../../core/server/create-loom.js';
import { TH_ACTOR_REGISTRY } from '../../core/records/reserved-threads.js';
import { memberDid } from '../../plugins/members/index.js';

const BATCH = 1_000;

export async function ingestAs(loom: Loom, owner: string, members: number, versions: number): Promise<string[]> {
  const dids = Array.from({ length: members }, (_, i) => memberDid(owner, `bench-${i}`));
  const last = new Map<string, string>();
  let clock = 0;
  for (let version = 1; version <= versions; version++) {
    for (let start = 0; start < members; start += BATCH) {
      const inputs = dids.slice(start, start + BATCH).map((did, k) => ({
        thread: TH_ACTOR_REGISTRY,
        actor: loom.info.instanceDid,
        act: 'LEARN',
        clock: clock++,
        data_type: 'SCALAR',
        judged_by: null,
        parents: last.has(did) ? [last.get(did)!] : [],
        body: {
          kind: 'core.actor.definition.v1',
          actor_did: did,
          label: `bench-${start + k}`,
          owner,
          by: owner,
          version,
          change: version === 1 ? 'defined' : 'patched',
          enabled: true,
          retired: false,
          reverted_to: null,
          display_name: `bench ${start + k}`,
          mechanism: 'llm',
          trust_domain: null,
          brief: null,
          stands_on: null,
          declares_kinds: [],
          default_on_new_threads: false,
          write_admit: [],
          work_loop: { model: 'claude-haiku-4-5', system_prompt_ref: null, tools: [], reads: [], budget_usd: 1, max_turns: version, daily_cost_cap_usd: null, daily_loop_cap: null, conversation_loop: false, verification: 'none' },
        },
      }));
      const results = await loom.engine.ingestor.ingestMany({ caller: SYSTEM, via: 'replay' }, inputs);
      results.forEach((result, k) => {
        if (result instanceof Error) throw result;
        last.set(dids[start + k]!, result.stored.record.id);
      });
    }
  }
  return dids;
}
