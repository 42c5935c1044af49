/**
 * The evals' ingest gates. Suites are written by anyone through POST
 * /v1/records, so their shape is checked where they enter: a suite that
 * could not be scored is refused at write, not discovered at scoring (one
 * with no cases is storable: scoring answers NO_CASES, spec §4.15). Grades
 * are written only by POST /v1/evals/score, so a grade on record is always
 * one the scorer computed. Replays and peers' records passed these gates
 * where they were first written.
 */
import type { IngestGate } from '../../../core/access/ingest-gate.js';
import { LoomError } from '../../../core/errors/loom-error.js';
import { KIND_GRADE } from './grade.js';
import { KIND_SUITE, suiteProblem } from './suite.js';

export const suiteShapeGate: IngestGate = {
  name: 'members.eval-suite',
  check({ record, context }) {
    if (record.body['kind'] !== KIND_SUITE || context.via === 'replay' || context.via === 'federation') return;
    const problem = suiteProblem(record.body);
    if (problem !== null) throw new LoomError('INVALID_SHAPE', `an eval suite (${KIND_SUITE}) must be well-formed: ${problem}`);
  },
};

export const gradeWriterGate: IngestGate = {
  name: 'members.eval-grade',
  check({ record, context }) {
    if (record.body['kind'] !== KIND_GRADE || context.plugin === 'members' || context.via === 'replay' || context.via === 'federation') return;
    throw new LoomError('FORBIDDEN', `${KIND_GRADE} records are written only by POST /v1/evals/score`);
  },
};
