/**
 * How a run's records read to a person watching it: one or a few lines per
 * record (the opening, each turn with its tokens, cost and the spend so far
 * against the run's ceiling, each tool call with its compact input and its
 * result with ok/failed and duration, provider errors, guardrail verdicts,
 * people's messages, a cancel, the outcome). Pure: the caller writes the
 * text. The spend is the running sum of the run's own turn records, the
 * same sum the run row folds; a view that starts mid-run (`loom runs tail`
 * without --replay) starts from the row's figures.
 */
import type { Record as LoomRecord, RunRow } from '../../../sdk/index.js';

/** The run's ceilings and the figures so far, from its opening record or its row. */
export interface RunFigures {
  actor: string | null;
  maxTurns: number | null;
  ceilingUsd: number | null;
  spentUsd: number;
}

const usd = (value: number) => `$${value.toFixed(4)}`;
const MAX_INPUT_CHARS = 120;

/** A tool input on one line, cut to a width a terminal shows whole. */
export function compactInput(input: unknown): string {
  const text = JSON.stringify(input ?? {}) ?? 'null';
  return text.length > MAX_INPUT_CHARS ? `${text.slice(0, MAX_INPUT_CHARS - 1)}…` : text;
}

/** Each line of a text behind a prefix (`rest` for the lines after the first), trailing spaces dropped so no line ends in one. */
function indented(text: string, first = '  | ', rest = first): string {
  return text
    .replace(/\s+$/, '')
    .split('\n')
    .map((line, i) => `${i === 0 ? first : rest}${line}`.trimEnd() + '\n')
    .join('');
}

/** `  label: text`, later lines aligned under the text. */
const labelled = (label: string, text: string) => indented(text, `  ${label}: `, ' '.repeat(label.length + 4));

const str = (value: unknown): string | null => (typeof value === 'string' ? value : null);
const num = (value: unknown): number | null => (typeof value === 'number' && Number.isFinite(value) ? value : null);

export class RunView {
  private readonly toolOf = new Map<string, string>();
  /** The last turn's text: the outcome's summary repeats it when the run completed, and is then not shown twice. */
  private lastText = '';

  constructor(private readonly figures: RunFigures = { actor: null, maxTurns: null, ceilingUsd: null, spentUsd: 0 }) {}

  /** Figures from a run row: where `loom runs tail` starts when it does not replay. */
  static fromRow(row: RunRow): RunView {
    return new RunView({ actor: row.actor, maxTurns: row.max_turns, ceilingUsd: row.ceiling_usd, spentUsd: row.spent_usd });
  }

  get spentUsd(): number {
    return this.figures.spentUsd;
  }

  private spendText(): string {
    return `spent ${usd(this.figures.spentUsd)}${this.figures.ceilingUsd === null ? '' : ` of ${usd(this.figures.ceilingUsd)}`}`;
  }

  /** The text of one record: '' for a record with nothing to say. */
  render(record: LoomRecord): string {
    const body = record.body;
    const own = this.figures.actor === null || record.actor === this.figures.actor;
    switch (body['kind']) {
      case 'core.work.run.v1': {
        this.figures.actor = record.actor;
        this.figures.maxTurns = num(body['max_turns']);
        this.figures.ceilingUsd = num(body['ceiling_usd']);
        const limits = [this.figures.maxTurns === null ? 'no turn limit' : `at most ${this.figures.maxTurns} turn${this.figures.maxTurns === 1 ? '' : 's'}`, this.figures.ceilingUsd === null ? 'no cost ceiling' : `ceiling ${usd(this.figures.ceilingUsd)}`];
        return `run ${record.thread} started: ${record.actor} on ${str(body['model']) ?? 'the default model'}; ${limits.join(', ')}\n` + labelled('goal', String(body['goal'] ?? ''));
      }
      case 'core.work.turn.v1': {
        if (!own) return '';
        const cost = num(body['cost_usd']) ?? 0;
        this.figures.spentUsd += cost;
        const of = this.figures.maxTurns === null ? '' : `/${this.figures.maxTurns}`;
        const text = str(body['text']) ?? '';
        this.lastText = text;
        return `turn ${body['turn']}${of}: ${num(body['input_tokens']) ?? 0} in, ${num(body['output_tokens']) ?? 0} out tokens, ${usd(cost)}; ${this.spendText()}\n` + (text.trim() === '' ? '' : indented(text));
      }
      case 'core.work.tool_call.v1': {
        const tool = str(body['tool']) ?? '?';
        const callId = str(body['call_id']);
        if (callId !== null) this.toolOf.set(callId, tool);
        const invalid = body['input_error'] === undefined ? '' : ' (input is not valid JSON)';
        return `  call ${tool} ${compactInput(body['input'])}${invalid}\n`;
      }
      case 'core.work.tool_result.v1': {
        const tool = this.toolOf.get(str(body['call_id']) ?? '') ?? str(body['call_id']) ?? '?';
        const duration = num(body['duration_ms']);
        const took = duration === null ? '' : ` (${Math.round(duration)} ms)`;
        if (body['ok'] === true) return `  result ${tool} ok${took}\n`;
        const error = (body['error'] ?? {}) as { code?: string; message?: string };
        return `  result ${tool} failed${took}: ${error.code ?? 'ERROR'}${error.message ? ` ${error.message}` : ''}\n`;
      }
      case 'core.work.provider_error.v1': {
        const status = num(body['status']);
        const what = [str(body['provider']), str(body['type']), status === null ? null : `(${status})`].filter(Boolean).join(' ');
        const retry = body['final'] === false ? `; retrying in ${num(body['retry_in_ms']) ?? 0} ms (attempt ${num(body['attempt']) ?? 1})` : '; giving up';
        return `provider error on turn ${body['turn']}: ${what}${str(body['message']) ? `: ${str(body['message'])}` : ''}${retry}\n`;
      }
      case 'core.work.guardrail.v1': {
        const what = [str(body['verdict']) ?? '?', str(body['tool'])].filter(Boolean).join(' ');
        return `guardrail: ${what} (${num(body['count']) ?? '?'} of ${num(body['threshold']) ?? '?'} identical failing calls)\n`;
      }
      case 'core.work.coercion.v1':
        return `blocked: ${str(body['reason']) ?? '?'}${str(body['narrative']) ? `: ${str(body['narrative'])}` : ''}\n`;
      case 'core.work.message.v1':
        return `message from ${record.actor}:\n` + indented(String(body['text'] ?? ''));
      case 'core.work.loop_cancel.v1':
        return `cancel requested by ${record.actor}${str(body['reason']) ? `: ${str(body['reason'])}` : ''}\n`;
      case 'core.work.loop_outcome.v1': {
        const turns = num(body['turns']);
        const spent = num(body['spent_usd']);
        if (spent !== null) this.figures.spentUsd = spent;
        const budget = str(body['budget_kind']) ? ` (${str(body['budget_kind'])})` : '';
        const summary = str(body['summary']);
        return `outcome: ${str(body['outcome']) ?? '?'}${budget} after ${turns ?? '?'} turn${turns === 1 ? '' : 's'}, ${this.spendText()}\n` + (summary === null || summary.trim() === '' || summary === this.lastText ? '' : labelled('summary', summary));
      }
      default:
        return `record ${str(body['kind']) ?? record.act} ${record.id} by ${record.actor}\n`;
    }
  }
}
