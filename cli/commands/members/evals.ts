/**
 * `loom evals score` and `loom evals show`: scoring a member's runs under
 * one definition with a suite (POST /v1/evals/score, records:write; the
 * caller is the judge) and its grades and comparisons (GET
 * /v1/actors/{did}/evals, records:read). --json prints the server's answer
 * as is; the human output shows the score beside the counts that explain it.
 */
import { defineCommand, subcommand } from '../../../command/define-command.js';
import { CliError } from '../../../command/cli-error.js';
import { call, clientContext, CLIENT_OPTIONS, print } from '../../kit/context.js';
import { didArgument, shortId } from '../../kit/options.js';
import { textTable } from '../../kit/text-table.js';
import type { ActorEvals, EvalScoredGrade } from '../../../sdk/index.js';

export const EVALS_USAGE = `loom evals score --suite <record id> --actor <did> --definition <record id>
            [--url …] [--token …] [--json]
loom evals show <did> [--url …] [--token …] [--json]
  score: judges every ended run of the member under that definition with the suite's cases and writes
  one grade, as you (records:write; you may not have proposed the definition). show: the member's
  grades, newest first, and each definition against its predecessor under the same suite (records:read).`;

const RECORD_ID = /^[0-9a-f]{64}$/;

function recordIdOption(name: string, text: string | undefined): string {
  if (text === undefined) throw new CliError(`loom evals score needs --${name}\n${EVALS_USAGE}`);
  if (!RECORD_ID.test(text)) throw new CliError(`--${name} ${JSON.stringify(text)} is not a record id (64 lowercase hex)`);
  return text;
}

const figure = (score: number | null | undefined): string => (score === null || score === undefined ? '-' : score.toFixed(3));
const signed = (delta: number | null): string => (delta === null ? '-' : `${delta >= 0 ? '+' : ''}${delta.toFixed(3)}`);

function gradeText(grade: EvalScoredGrade): string {
  const passed = grade.cases.reduce((n, c) => n + c.passed, 0);
  const total = grade.cases.reduce((n, c) => n + c.total, 0);
  const facts: Array<[string, string]> = [
    ['member', `${grade.actor} (definition v${grade.definition_version} ${shortId(grade.definition)})`],
    ['suite', grade.suite],
    ['structure', `${figure(grade.structure_score)} (${passed} of ${total} checks passed)`],
    ['substance', grade.substance_scored ? `${figure(grade.substance_score)} (graded by ${grade.grader_model})` : 'not scored (no grader model is configured)'],
    ['runs', `${grade.runs_scored} scored, ${grade.runs_open} still open${grade.capped ? `; capped at the newest ${grade.scan_ceiling}` : ''}`],
  ];
  const checks = Object.entries(grade.checks)
    .filter(([, c]) => c.total > 0)
    .map(([name, c]) => [name, String(c.passed), String(c.total)]);
  const cases = grade.cases.map((c) => [c.id, String(c.weight), String(c.runs), String(c.passed), String(c.total), figure(c.score)]);
  return (
    `grade ${grade.id} by ${grade.judge}\n` +
    facts.map(([label, value]) => `  ${label.padEnd(9)}  ${value}\n`).join('') +
    '\n' +
    textTable(['check', 'passed', 'of'], checks) +
    '\n' +
    textTable(['case', 'weight', 'runs', 'passed', 'of', 'score'], cases)
  );
}

function evalsText(evals: ActorEvals): string {
  if (evals.grades.length === 0) return `no grades of ${evals.actor}\n`;
  const capped = evals.capped ? ` (the newest ${evals.scan_ceiling})` : '';
  let text = `grades of ${evals.actor}, newest first${capped}:\n`;
  text += textTable(
    ['at', 'version', 'suite', 'structure', 'substance', 'runs', 'judge'],
    evals.grades.map((g) => [g.at, `v${g.definition_version}`, shortId(g.suite), figure(g.structure_score), g.substance_scored ? figure(g.substance_score) : 'not scored', String(g.runs_scored), g.judge]),
  );
  if (evals.comparisons.length > 0) {
    text += '\neach definition against its predecessor, per suite:\n';
    text += textTable(
      ['suite', 'version', 'structure', 'delta', 'substance', 'delta'],
      evals.comparisons.map((c) => [
        shortId(c.suite),
        `v${c.version} vs v${c.predecessor_version}`,
        `${figure(c.structure.score)} vs ${figure(c.structure.predecessor_score)}`,
        signed(c.structure.delta),
        c.substance.substance_scored ? `${figure(c.substance.score)} vs ${figure(c.substance.predecessor_score)}` : 'not scored',
        signed(c.substance.delta),
      ]),
    );
  }
  return text;
}

export const evals = defineCommand({
  name: 'evals',
  summary: "score a member's runs with a suite; its grades and comparisons",
  usage: EVALS_USAGE,
  json: true,
  bareIsHelp: true,
  subcommands: {
    score: subcommand({
      summary: "judge a member's ended runs under one definition with a suite, writing one grade (records:write)",
      options: {
        ...CLIENT_OPTIONS,
        suite: { type: 'string', value: 'record id', help: 'the core.eval.suite.v1 record' },
        actor: { type: 'string', value: 'did', help: 'the member whose runs are scored' },
        definition: { type: 'string', value: 'record id', help: 'the definition version the runs ran under (loom actors history)' },
      },
      run: async ({ values, positionals }) => {
        if (positionals.length !== 0) throw new CliError(`loom evals score takes no arguments (got "${positionals[0]}")\n${EVALS_USAGE}`);
        const suite = recordIdOption('suite', values.suite);
        if (values.actor === undefined) throw new CliError(`loom evals score needs --actor\n${EVALS_USAGE}`);
        const actor = didArgument('--actor', values.actor);
        const definition = recordIdOption('definition', values.definition);
        const ctx = clientContext(values);
        const { data } = await call(ctx, ctx.client.scoreEvals({ body: { suite, actor, definition } }));
        print(ctx, data, () => gradeText(data));
      },
    }),
    show: subcommand({
      summary: "a member's grades, newest first, and each definition against its predecessor (records:read)",
      args: ['<did>'],
      options: CLIENT_OPTIONS,
      run: async ({ values, positionals }) => {
        if (positionals.length !== 1) throw new CliError(`loom evals show takes one member DID\n${EVALS_USAGE}`);
        const did = didArgument('the member', positionals[0]!);
        const ctx = clientContext(values);
        const { data } = await call(ctx, ctx.client.getActorEvals({ path: { did } }));
        print(ctx, data, () => evalsText(data));
      },
    }),
  },
});
