/**
 * A member as PATCH, revert and `GET /v1/self/workspace` (`assistants[]`)
 * answer it, and as the roster lists it (spec §4.7, §4.15).
 */
import type { DefinitionBody } from './definition.js';
import { promptRecordId } from './definition.js';
import type { MemberEntry } from './member-registry-fold.js';

export interface MemberRow {
  object: 'assistant';
  did: string;
  label: string;
  display_name: string;
  owner: string;
  mechanism: DefinitionBody['mechanism'];
  model: string | null;
  tools: string[];
  approval_required: string[];
  prompt_record_id: string | null;
  budget_usd: number | null;
  max_turns: number | null;
  daily_cost_cap_usd: number | null;
  daily_loop_cap: number | null;
  default_on_new_threads: boolean;
  enabled: boolean;
  retired: boolean;
  version: number;
  definition_record_id: string;
  updated_at: string;
}

export function memberRow(entry: MemberEntry): MemberRow {
  const body = entry.current;
  const loop = body.work_loop;
  return {
    object: 'assistant',
    did: entry.did,
    label: body.label,
    display_name: body.display_name,
    owner: body.owner,
    mechanism: body.mechanism,
    model: loop.model,
    tools: [...loop.tools],
    approval_required: [...(loop.approval_required ?? [])],
    prompt_record_id: promptRecordId(loop.system_prompt_ref),
    budget_usd: loop.budget_usd,
    max_turns: loop.max_turns,
    daily_cost_cap_usd: loop.daily_cost_cap_usd,
    daily_loop_cap: loop.daily_loop_cap,
    default_on_new_threads: body.default_on_new_threads,
    enabled: body.enabled,
    retired: body.retired,
    version: body.version,
    definition_record_id: entry.currentId,
    updated_at: entry.versions[entry.versions.length - 1]!.at,
  };
}
