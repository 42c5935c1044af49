import { useEffect, useState } from 'preact/hooks';
import type { RunRow } from '../../sdk/index.js';
import { client, messageOf } from '../session.js';
import { href } from '../router.js';
import { short } from '../format.js';

const STATES = ['running', 'waiting_on_you', 'done', 'stopped', 'stopped_short'] as const;
type RunState = (typeof STATES)[number];

/** The runs the caller may see, newest first, filtered by state. */
export function Runs() {
  const [state, setState] = useState<RunState | ''>('');
  const [rows, setRows] = useState<RunRow[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    const load = async () => {
      const { data, error: refusal } = await client.value.listRuns({ query: { limit: 50, ...(state ? { state } : {}) } });
      if (!live) return;
      if (data) setRows(data.data);
      else setError(messageOf(refusal));
    };
    void load();
    const timer = setInterval(() => void load(), 2_000);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, [state]);
  return (
    <main id="main">
      <h1>Runs</h1>
      <label for="run-state">State</label>{' '}
      <select id="run-state" value={state} onChange={(event) => setState((event.target as HTMLSelectElement).value as RunState | '')}>
        <option value="">any</option>
        {STATES.map((value) => (
          <option key={value} value={value}>
            {value.replace(/_/g, ' ')}
          </option>
        ))}
      </select>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <table class="grid">
        <caption class="sr-only">Runs</caption>
        <thead>
          <tr>
            <th scope="col">Goal</th>
            <th scope="col">Member</th>
            <th scope="col">State</th>
            <th scope="col">Turns</th>
            <th scope="col">Spent</th>
          </tr>
        </thead>
        <tbody>
          {(rows ?? []).map((run) => (
            <tr key={run.thread} data-run={run.thread}>
              <td>
                <a href={href(`/runs/${run.thread}`)}>{run.goal || short(run.thread, 16)}</a>
              </td>
              <td>{run.actor_name ?? short(run.actor, 24)}</td>
              <td>{run.state.replace(/_/g, ' ')}</td>
              <td class="num">
                {run.turns}
                {run.max_turns !== null && ` / ${run.max_turns}`}
              </td>
              <td class="num">{usd(run.spent_usd, run.ceiling_usd)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {rows !== null && rows.length === 0 && <p>No runs{state && ` in state ${state.replace(/_/g, ' ')}`}.</p>}
    </main>
  );
}

export const usd = (spent: number, ceiling: number | null) => `$${spent.toFixed(4)}${ceiling === null ? '' : ` of $${ceiling.toFixed(2)}`}`;
