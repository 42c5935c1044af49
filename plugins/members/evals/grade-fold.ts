/**
 * member_grades: every grade on record, by the member graded, oldest first
 * (GET /v1/actors/{did}/evals answers from it). Only the members plugin
 * writes grades (eval-gates.ts); each is kept without its `runs` list,
 * which stays on the record.
 */
import type { Fold } from '../../../core/folds/fold.js';
import { gradeOf, KIND_GRADE, type Grade, type GradeBody } from './grade.js';

export const MEMBER_GRADES_FOLD = 'member_grades';

export interface GradeEntry {
  readonly sequence: number;
  readonly grade: Grade;
}

export interface GradeState {
  byMember: Map<string, GradeEntry[]>;
}

export const memberGradesFold: Fold<GradeState, { members: number; grades: number }> = {
  name: MEMBER_GRADES_FOLD,
  scope: 'global',
  description: 'Eval grades by member graded (core.eval.grade.v1), oldest first.',
  ignoresSystemThreads: true,
  kinds: [KIND_GRADE],
  initial: () => ({ byMember: new Map() }),
  apply(state, { record, sequence, createdAt }) {
    if (record.body['kind'] !== KIND_GRADE || record.act !== 'KNOW') return state;
    const body = record.body as unknown as GradeBody;
    if (typeof body.actor !== 'string' || typeof body.definition !== 'string') return state;
    const grade = gradeOf(record.id, record.thread, new Date(createdAt ?? 0).toISOString(), { ...body, judge: record.actor });
    let list = state.byMember.get(body.actor);
    if (!list) state.byMember.set(body.actor, (list = []));
    list.push({ sequence, grade });
    return state;
  },
  value: (state) => {
    let grades = 0;
    for (const list of state.byMember.values()) grades += list.length;
    return { members: state.byMember.size, grades };
  },
  checkpoint: {
    version: 1,
    save: (state) => [...state.byMember.entries()],
    load: (saved) => ({ byMember: new Map(saved as Array<[string, GradeEntry[]]>) }),
  },
};
