/**
 * Scoring a member's runs and reading its grades (spec §4.15: POST
 * /v1/evals/score, GET /v1/actors/{did}/evals). Scoring checks the whole
 * request before reading any run (suite, member, definition, judge), finds
 * the runs under the definition in the member_runs fold, reads each ended
 * run's thread as the judge may see it, up to the sequence the index
 * covered (so a run still being written is judged as it stood), and writes
 * ONE grade, as the judge, through the same gates as any write. Every
 * refusal comes before that write, so a refused request writes nothing.
 */
import { actingDid, SYSTEM, type Caller } from '../../../core/access/caller.js';
import { threadVisibility } from '../../../core/access/restriction.js';
import type { RecordReader } from '../../../core/engine/record-reader.js';
import type { RecordWriter } from '../../../core/engine/record-writer.js';
import { token } from '../../../core/di/token.js';
import { LoomError } from '../../../core/errors/loom-error.js';
import type { OwnFold } from '../../../core/plugin/own-fold.js';
import type { JsonObject } from '../../../core/records/json.js';
import type { LoomRecord } from '../../../core/records/record.js';
import { MAX_PARENTS } from '../../../core/records/validate-record.js';
import { KIND_DEFINITION, type DefinitionBody } from '../definition.js';
import type { MemberService } from '../member-service.js';
import { comparisonsOf, type Comparison } from './comparisons.js';
import { evalsThreadId, gradeOf, KIND_GRADE, SCAN_CEILING, type Grade, type GradeBody, type JudgedRun } from './grade.js';
import type { GradeState } from './grade-fold.js';
import { runKey, type RunEntry, type RunIndexState } from './run-index-fold.js';
import { runLogOf } from './run-log.js';
import { caseSelects, judgeRun, StructureTally } from './structure-score.js';
import { SubstanceTally, type SubstanceGrader } from './substance-grader.js';
import { KIND_SUITE, parseSuite } from './suite.js';
import type { ToolInputCheck } from './tool-input-check.js';

/** Run threads read at once while scoring. */
const READ_CONCURRENCY = 8;

export interface ScoreRequest {
  readonly suite: string;
  readonly actor: string;
  readonly definition: string;
}

export interface EvalServiceDeps {
  readonly reader: RecordReader;
  readonly writer: RecordWriter;
  readonly members: Pick<MemberService, 'entry'>;
  readonly runs: OwnFold<RunIndexState>;
  readonly grades: OwnFold<GradeState>;
  readonly inputs: ToolInputCheck;
  /** The configured substance grader, or null (none is, until the work loop brings provider adapters). */
  readonly grader: () => SubstanceGrader | null;
}

export interface ActorEvals {
  object: 'actor_evals';
  actor: string;
  thread: string;
  grades: Grade[];
  comparisons: Comparison[];
  scan_ceiling: number;
  capped: boolean;
}

export class EvalService {
  constructor(private readonly deps: EvalServiceDeps) {}

  async score(caller: Caller, request: ScoreRequest): Promise<Grade & { runs: JudgedRun[] }> {
    const suite = await this.suite(caller, request.suite);
    const cases = suite.cases ?? [];
    if (cases.length === 0) throw new LoomError('NO_CASES', `suite ${request.suite} has no cases; nothing written`);
    const entry = this.deps.members.entry(request.actor);
    if (!entry) throw new LoomError('ACTOR_UNKNOWN', `no member ${request.actor} is defined here`);
    if (!entry.versions.some((v) => v.id === request.definition)) throw new LoomError('VERSION_UNKNOWN', `${request.definition} is not a definition of ${request.actor} (GET /v1/actors/{did}/history lists them)`);
    const definition = await this.definitionBody(request.definition);
    const judge = actingDid(caller);
    refuseSelfJudgment(caller, definition);

    const { state, watermark } = this.deps.runs.snapshot();
    const all = state.byDefinition.get(runKey(request.actor, request.definition)) ?? [];
    const scanned = all.slice(-SCAN_CEILING);
    const ended = scanned.filter((run) => run.outcome !== null);
    if (ended.length === 0) throw new LoomError('NO_RUNS_UNDER_DEFINITION', `no ended run of ${request.actor} is on record under ${request.definition}${scanned.length > 0 ? ` (${scanned.length} still open)` : ''}; nothing written`);

    const structure = new StructureTally(cases);
    const grader = this.deps.grader();
    const substance = new SubstanceTally(grader);
    const context = { declaresKinds: definition.declares_kinds, inputValid: (tool: string, input: unknown) => this.deps.inputs.inputValid(tool, input) };
    const judged: JudgedRun[] = [];
    for (let start = 0; start < ended.length; start += READ_CONCURRENCY) {
      const batch = ended.slice(start, start + READ_CONCURRENCY);
      const logs = await Promise.all(batch.map((run) => this.runRecords(caller, run, watermark)));
      // Judged in log order whatever order the reads finished in: the same runs always add up the same way.
      for (const [i, records] of logs.entries()) {
        const log = records && runLogOf(records);
        if (!log || log.runId !== batch[i]!.id) continue; // the judge may not read this run
        const failed: string[] = [];
        let selected = false;
        for (const [index, evalCase] of cases.entries()) {
          if (!caseSelects(evalCase, log)) continue;
          selected = true;
          const results = judgeRun(evalCase, log, context);
          structure.add(index, results);
          for (const result of results) if (!result.passed) failed.push(`${evalCase.id}/${result.check}`);
          await substance.add(evalCase.weight ?? 1, evalCase.rubric, log.goal, records!);
        }
        if (selected) judged.push({ run: log.runId, thread: log.thread, through: log.through, records: log.records, failed });
      }
    }
    if (judged.length === 0) throw new LoomError('NO_RUNS_UNDER_DEFINITION', `no ended run under ${request.definition} that you may read matches a case of suite ${request.suite}; nothing written`);

    const tally = structure.result();
    const body: GradeBody = {
      kind: KIND_GRADE,
      schema_version: '1.0.0',
      actor: request.actor,
      definition: request.definition,
      definition_version: definition.version,
      suite: request.suite,
      judge,
      structure_score: tally.structure_score,
      ...substance.result(),
      runs_scored: judged.length,
      runs_open: scanned.length - ended.length,
      capped: all.length > SCAN_CEILING,
      scan_ceiling: SCAN_CEILING,
      scanned_through: watermark,
      checks: tally.checks,
      cases: tally.cases,
      runs: judged,
    };
    const thread = evalsThreadId(request.actor);
    const { stored } = await this.deps.writer.appendAs(caller, {
      thread,
      act: 'KNOW',
      plugin: 'members',
      body: body as unknown as JsonObject,
      // The judged runs' opening records; a record cites at most MAX_PARENTS, so past that the newest (all are in body.runs).
      parents: judged.slice(-MAX_PARENTS).map((run) => run.run),
    });
    return { ...gradeOf(stored.record.id, thread, new Date(stored.createdAt).toISOString(), body), runs: judged };
  }

  /** The member's grades newest first and its comparisons; a caller that may not read the whole evals thread sees none. */
  evals(caller: Caller, did: string): ActorEvals {
    if (!this.deps.members.entry(did)) throw new LoomError('ACTOR_UNKNOWN', `no member ${did} is defined here`);
    const thread = evalsThreadId(did);
    const visible = threadVisibility(this.deps.reader.restriction(caller), thread) === 'all';
    const all = visible ? (this.deps.grades.state().byMember.get(did) ?? []) : [];
    const shown = all.slice(-SCAN_CEILING).map((entry) => entry.grade);
    return {
      object: 'actor_evals',
      actor: did,
      thread,
      grades: [...shown].reverse(),
      comparisons: comparisonsOf(shown),
      scan_ceiling: SCAN_CEILING,
      capped: all.length > SCAN_CEILING,
    };
  }

  private async suite(caller: Caller, id: string) {
    const stored = await this.deps.reader.get(caller, id);
    if (!stored || stored.record.body['kind'] !== KIND_SUITE) throw new LoomError('NOT_FOUND', `no eval suite ${id} that you may read is on record (a ${KIND_SUITE} record)`);
    const suite = parseSuite(stored.record.body);
    if (!suite) throw new LoomError('NOT_FOUND', `record ${id} is not a well-formed eval suite`);
    return suite;
  }

  private async definitionBody(id: string): Promise<DefinitionBody> {
    const stored = await this.deps.reader.get(SYSTEM, id);
    if (!stored || stored.record.body['kind'] !== KIND_DEFINITION) throw new LoomError('VERSION_UNKNOWN', `definition ${id} is not stored here`);
    return stored.record.body as unknown as DefinitionBody;
  }

  /** The run thread's records the judge may see, up to `upTo`; null when it may see none. */
  private async runRecords(caller: Caller, run: RunEntry, upTo: number): Promise<LoomRecord[] | null> {
    const records: LoomRecord[] = [];
    for await (const stored of this.deps.reader.records(caller, run.thread, { upTo })) records.push(stored.record);
    return records.length === 0 ? null : records;
  }
}

/**
 * A judge may not grade runs under a definition it proposed (prior art:
 * VERDICT_SELF_JUDGMENT), nor the member grade itself: the caller's acting
 * DID, its principal and its claimed actor are each compared with the
 * member's owner, the version's writer, the member, and the member whose
 * approved blueprint proposal wrote the version (`proposed_by`).
 */
function refuseSelfJudgment(caller: Caller, definition: DefinitionBody): void {
  const judges = new Set([actingDid(caller), caller.principal, caller.actor].filter((did): did is string => did !== null));
  const parties = [definition.owner, definition.by, definition.actor_did, ...(typeof definition.proposed_by === 'string' ? [definition.proposed_by] : [])];
  const self = parties.find((did) => judges.has(did));
  if (self !== undefined) {
    throw new LoomError('VERDICT_SELF_JUDGMENT', `${self === definition.actor_did ? 'a member cannot grade its own runs' : `${self} proposed this definition and cannot judge runs under it`}; nothing written`);
  }
}

export const EvalServiceToken = token<EvalService>('members.EvalService');
