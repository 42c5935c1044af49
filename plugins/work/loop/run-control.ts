/**
 * What people do to a running run (spec §3, §4.8, prior art §1.19 run
 * events): cancel it, or write to it. Who may: the member itself, whoever
 * started the run, the member's owner, or an operator. The record is
 * written by the engine in the caller's name after that check (a bounded
 * credential need not hold a write grain on the run's thread), and the run
 * engine reacts to it: a cancel aborts the provider stream at once, a
 * message is read by the next model call.
 */
import { actingDid, SYSTEM, type Caller } from '../../../core/access/caller.js';
import type { RecordWriter } from '../../../core/engine/record-writer.js';
import { LoomError } from '../../../core/errors/loom-error.js';
import { isOperator, KIND_LOOP_CANCEL, type MemberService, type RunService, type RunRow } from '../../members/index.js';
import type { RunEngine } from './run-engine.js';
import { KIND_RUN_MESSAGE } from './work-kinds.js';

export interface RunControlDeps {
  readonly runs: RunService;
  readonly members: MemberService;
  readonly writer: RecordWriter;
  readonly engine: RunEngine;
  /** The opening body of a run on record (any state), or undefined. */
  readonly opening: (thread: string) => Readonly<Record<string, unknown>> | undefined;
}

export class RunControl {
  constructor(private readonly deps: RunControlDeps) {}

  /** The run row as the caller may see it (404 NOT_FOUND as GET /v1/runs/{thread}). */
  row(caller: Caller, thread: string): RunRow {
    return this.deps.runs.row(caller, thread);
  }

  /** The row of a run the caller just started (it may not read the run's thread whole, yet it is its run). */
  systemRow(thread: string): RunRow {
    return this.deps.runs.row(SYSTEM, thread);
  }

  private authorise(caller: Caller, thread: string): RunRow {
    const row = this.deps.runs.row(caller, thread);
    const me = actingDid(caller);
    const opening = this.deps.opening(thread) ?? {};
    const owner = this.deps.members.entry(row.actor)?.current.owner;
    const operator = isOperator(caller);
    if (!operator && me !== row.actor && me !== opening['started_by'] && me !== owner) {
      throw new LoomError('FORBIDDEN', `${me} may not steer or stop run ${thread}: only the member, whoever started the run, the member's owner or an operator may`);
    }
    return row;
  }

  /** Writes the cancel (when the run is still running) and aborts its provider stream here at once. */
  async cancel(caller: Caller, thread: string, reason: string | null): Promise<{ cancel: string | null; row: RunRow }> {
    const row = this.authorise(caller, thread);
    if (row.state !== 'running' && row.state !== 'waiting_on_you') return { cancel: null, row };
    const { stored } = await this.deps.writer.appendAs(SYSTEM, {
      thread,
      act: 'DO',
      actor: actingDid(caller),
      plugin: 'work',
      body: { kind: KIND_LOOP_CANCEL, run: row.run, reason },
      parents: [row.run],
    });
    // The consumer sees the record too (on whichever server drives the run); aborting here saves the round trip.
    this.deps.engine.abort(thread, 'cancel');
    return { cancel: stored.record.id, row };
  }

  async message(caller: Caller, thread: string, text: string): Promise<{ record: string; row: RunRow }> {
    const row = this.authorise(caller, thread);
    if (row.state !== 'running' && row.state !== 'waiting_on_you') throw new LoomError('RUN_ENDED', `run ${thread} has ended (${row.state}); start a new run that reads its thread`);
    const { stored } = await this.deps.writer.appendAs(SYSTEM, { thread, act: 'KNOW', actor: actingDid(caller), plugin: 'work', body: { kind: KIND_RUN_MESSAGE, run: row.run, text }, parents: [row.run] });
    return { record: stored.record.id, row };
  }
}
