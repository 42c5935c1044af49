import { useEffect, useState } from 'preact/hooks';
import type { ThreadSummary } from '../../sdk/index.js';
import { can, client, messageOf } from '../session.js';
import { href, navigate } from '../router.js';
import { short } from '../format.js';

/** The threads the caller may read, a page at a time. */
export function Threads() {
  const [rows, setRows] = useState<ThreadSummary[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [more, setMore] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);

  const load = async (after: string | null) => {
    setLoading(true);
    const { data, error: refusal } = await client.value.listThreads({ query: { limit: 50, ...(after ? { after } : {}) } });
    setLoading(false);
    if (!data) return setError(messageOf(refusal));
    setRows((previous) => (after ? [...previous, ...data.data] : data.data));
    setCursor(data.next_cursor);
    setMore(data.has_more);
  };
  useEffect(() => {
    void load(null);
  }, []);

  return (
    <main id="main">
      <h1>Threads</h1>
      {can('threads:write') && <NewThread />}
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <table class="grid">
        <caption class="sr-only">Threads you can read</caption>
        <thead>
          <tr>
            <th scope="col">Goal</th>
            <th scope="col">Thread</th>
            <th scope="col">Status</th>
            <th scope="col">Records</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.thread} data-thread={row.thread}>
              <td>
                <a href={href(`/threads/${row.thread}`)}>{row.first_goal ?? '(no goal)'}</a>
              </td>
              <td>
                <code title={row.thread}>{short(row.thread, 16)}</code>
              </td>
              <td>{row.status}</td>
              <td class="num">{row.record_count}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {!loading && rows.length === 0 && !error && <p>No threads yet.</p>}
      {more && (
        <button type="button" onClick={() => void load(cursor)} disabled={loading}>
          Load more threads
        </button>
      )}
    </main>
  );
}

/** Opens a task thread (POST /v1/threads): shown only to a caller holding threads:write. */
function NewThread() {
  const [goal, setGoal] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  return (
    <form
      class="inline"
      data-write
      onSubmit={async (event) => {
        event.preventDefault();
        if (!goal.trim()) return;
        setBusy(true);
        const { data, error: refusal } = await client.value.createThread({ body: { goal: goal.trim() } });
        setBusy(false);
        if (data) navigate(`/threads/${data.thread}`);
        else setError(messageOf(refusal));
      }}
    >
      <label for="new-thread-goal">New thread goal</label>
      <input id="new-thread-goal" value={goal} onInput={(event) => setGoal((event.target as HTMLInputElement).value)} />
      <button type="submit" disabled={busy || !goal.trim()}>
        Open thread
      </button>
      {error && (
        <span role="alert" class="error">
          {error}
        </span>
      )}
    </form>
  );
}
