import { useEffect, useState } from 'preact/hooks';
import type { Decision, Record as LoomRecord, RunRow } from '../../sdk/index.js';
import { can, client, messageOf } from '../session.js';
import { href } from '../router.js';
import { short } from '../format.js';
import { coalesced, follow } from '../follow.js';
import { DecisionCard } from './decisions.js';
import { usd } from './runs.js';

interface Step {
  readonly id: string;
  readonly kind: string;
  readonly line: string;
}

/** A run's own records as steps: turns, tool calls and their results, decisions, messages, the outcome. */
function stepOf(record: LoomRecord): Step | null {
  const body = record.body as Record<string, unknown>;
  const kind = typeof body['kind'] === 'string' ? (body['kind'] as string) : '';
  const text = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value ?? null)).slice(0, 200);
  switch (kind) {
    case 'core.work.run.v1':
      return { id: record.id, kind: 'start', line: `started: ${text(body['goal'])}` };
    case 'core.work.turn.v1':
      return { id: record.id, kind: 'turn', line: `turn ${text(body['turn'])}${body['text'] ? `: ${text(body['text'])}` : ''}` };
    case 'core.work.tool_call.v1':
      return { id: record.id, kind: 'tool call', line: `${text(body['tool'])}(${text(body['input'])})` };
    case 'core.work.tool_result.v1':
      return { id: record.id, kind: 'tool result', line: body['ok'] ? text(body['output']) : `failed: ${text((body['error'] as { message?: string } | null)?.message)}` };
    case 'core.work.decision_request.v1':
      return { id: record.id, kind: 'decision', line: text(body['question'] ?? body['reason'] ?? 'asks a decision') };
    case 'core.work.decision_answer.v1':
      return { id: record.id, kind: 'answer', line: text(body['answer'] ?? body['decision']) };
    case 'core.work.message.v1':
      return { id: record.id, kind: 'message', line: text(body['text']) };
    case 'core.work.loop_cancel.v1':
      return { id: record.id, kind: 'cancel', line: text(body['reason'] ?? 'cancelled') };
    case 'core.work.loop_outcome.v1':
      return { id: record.id, kind: 'outcome', line: `${text(body['outcome'])}${body['summary'] ? `: ${text(body['summary'])}` : ''}` };
    default:
      return null;
  }
}

/** One run, live: its row (state, turns, spend against the ceilings) and its steps; cancel and steer where allowed. */
export function Run({ thread }: { thread: string }) {
  const [row, setRow] = useState<RunRow | null>(null);
  const [steps, setSteps] = useState<Step[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [message, setMessage] = useState('');
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    const loom = client.value;
    setSteps([]);
    const refresh = coalesced(async () => {
      const { data, error: refusal } = await loom.getRun({ path: { thread } });
      if (data) setRow(data);
      else setError(messageOf(refusal));
    });
    refresh();
    const seen = new Set<string>();
    return follow(loom, thread, (record) => {
      if (seen.has(record.id)) return;
      seen.add(record.id);
      const step = stepOf(record);
      if (step) setSteps((list) => [...list, step]);
      refresh();
    });
  }, [thread]);

  const event = async (body: { type: 'message'; text: string } | { type: 'stop'; reason?: string }) => {
    setBusy(true);
    const { error: refusal } = await client.value.postRunEvent({ path: { thread }, body });
    setBusy(false);
    setError(refusal ? messageOf(refusal) : null);
  };

  const writable = can('records:write', thread);
  const active = row !== null && (row.state === 'running' || row.state === 'waiting_on_you');
  return (
    <main id="main">
      <h1>{row ? `Run: ${row.goal}` : <>Run <code>{short(thread, 16)}</code></>}</h1>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {row && (
        <dl class="fields" data-run-state={row.state}>
          <dt>State</dt>
          <dd>
            {row.state.replace(/_/g, ' ')}
            {row.outcome && ` (${row.outcome})`}
          </dd>
          <dt>Member</dt>
          <dd>{row.actor_name ?? <code>{row.actor}</code>}</dd>
          <dt>Model</dt>
          <dd>{row.model ?? 'unknown'}</dd>
          <dt>Turns</dt>
          <dd>
            {row.turns}
            {row.max_turns !== null && ` of ${row.max_turns}`}
          </dd>
          <dt>Spend</dt>
          <dd>
            {usd(row.spent_usd, row.ceiling_usd)}
            {row.ceiling_usd !== null && row.ceiling_usd > 0 && (
              <>
                {' '}
                <meter min={0} max={row.ceiling_usd} value={row.spent_usd} aria-label="Spend against the ceiling" />
              </>
            )}
          </dd>
          <dt>Thread</dt>
          <dd>
            <a href={href(`/threads/${thread}`)}>
              <code>{short(thread, 20)}</code>
            </a>
          </dd>
          {row.summary && (
            <>
              <dt>Summary</dt>
              <dd>{row.summary}</dd>
            </>
          )}
        </dl>
      )}
      {row?.ask && (
        <ul class="cards" aria-label="Waiting on you">
          <DecisionCard
            decision={{ ...row.ask, object: 'decision', state: 'pending', thread, run: thread, actor: row.actor, actor_name: row.actor_name, goal: row.goal, started_by: null, sequence: 0 } as Decision}
            onAnswered={() => undefined}
          />
        </ul>
      )}
      {writable && active && (
        <section aria-label="Steer" class="steer" data-write>
          <form
            onSubmit={(submit) => {
              submit.preventDefault();
              if (message.trim()) void event({ type: 'message', text: message.trim() }).then(() => setMessage(''));
            }}
          >
            <label for="steer">Message to the member</label>
            <input id="steer" value={message} onInput={(input) => setMessage((input.target as HTMLInputElement).value)} />
            <button type="submit" disabled={busy || !message.trim()}>
              Send
            </button>
          </form>
          <button type="button" class="danger" disabled={busy} onClick={() => void event({ type: 'stop', reason: 'cancelled from the console' })}>
            Cancel the run
          </button>
        </section>
      )}
      <h2>Steps</h2>
      <ol class="steps">
        {steps.map((step) => (
          <li key={step.id} data-kind={step.kind}>
            <a href={href(`/records/${step.id}`)} class="kind">
              {step.kind}
            </a>{' '}
            {step.line}
          </li>
        ))}
      </ol>
    </main>
  );
}
