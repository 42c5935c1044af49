import { useEffect, useState } from 'preact/hooks';
import type { Decision } from '../../sdk/index.js';
import { can, client, messageOf } from '../session.js';
import { href } from '../router.js';
import { short } from '../format.js';
import { coalesced, follow } from '../follow.js';
import { Time } from '../time.js';

/** How often the queue and the running runs are re-read; a running run's own records refresh it at once. */
const POLL_MS = 1_000;

/** The pending decisions, answered in place with each ask's options. */
export function Decisions() {
  const [pending, setPending] = useState<Decision[] | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    const loom = client.value;
    const refresh = coalesced(async () => {
      const { data, error: refusal } = await loom.listDecisions({ query: { limit: 100 } });
      if (data) {
        setPending(data.data);
        setError(null);
      } else setError(messageOf(refusal));
    });
    // A decision is a record on its run's thread: follow each running run, so a new ask shows the moment it is written.
    const followed = new Map<string, () => void>();
    const discover = async () => {
      const { data } = await loom.listRuns({ query: { state: 'running', limit: 50 } });
      const running = new Set((data?.data ?? []).map((run) => run.thread));
      for (const [thread, stop] of followed) if (!running.has(thread)) (stop(), followed.delete(thread));
      for (const thread of running) if (!followed.has(thread)) followed.set(thread, follow(loom, thread, () => refresh()));
    };
    refresh();
    void discover();
    const timer = setInterval(() => {
      refresh();
      void discover();
    }, POLL_MS);
    return () => {
      clearInterval(timer);
      for (const stop of followed.values()) stop();
    };
  }, []);

  return (
    <main id="main">
      <h1>Decisions</h1>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {pending === null ? <p>Loading…</p> : pending.length === 0 ? <p data-empty>Nothing is waiting on you.</p> : null}
      <ul class="cards" aria-label="Pending decisions">
        {(pending ?? []).map((decision) => (
          <DecisionCard key={decision.id} decision={decision} onAnswered={(id) => setPending((list) => (list ?? []).filter((d) => d.id !== id))} />
        ))}
      </ul>
    </main>
  );
}

export function DecisionCard({ decision, onAnswered }: { decision: Decision; onAnswered: (id: string) => void }) {
  const [chosen, setChosen] = useState<string[]>([]);
  const [other, setOther] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const writable = can('records:write', decision.thread);

  const answer = async (body: { decision: string; decisions?: string[]; provided_value?: string }) => {
    setBusy(true);
    setError(null);
    const { data, error: refusal } = await client.value.decideDecision({ path: { id: decision.id }, body });
    setBusy(false);
    if (data) onAnswered(decision.id);
    else setError(messageOf(refusal));
  };
  const headingId = `decision-${decision.id.slice(0, 12)}`;
  return (
    <li class="card" data-decision={decision.id} aria-labelledby={headingId}>
      <h2 id={headingId}>{decision.question}</h2>
      <p class="meta">
        {decision.about === 'tool_call' ? `Approve the call of ${decision.tool ?? 'a tool'}` : decision.about === 'blueprint_proposal' ? 'A blueprint proposal' : 'A question'} from{' '}
        {decision.actor_name ?? short(decision.actor, 24)} · run <a href={href(`/runs/${decision.run}`)}>{decision.goal || short(decision.run, 16)}</a>
        {decision.raised_at && (
          <>
            {' '}
            · raised <Time at={decision.raised_at} />
          </>
        )}
      </p>
      {decision.reason && <p>{decision.reason}</p>}
      {decision.input !== null && decision.input !== undefined && <pre class="body small">{JSON.stringify(decision.input, null, 2)}</pre>}
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {writable ? (
        decision.multi ? (
          <fieldset data-write>
            <legend>Choose one or more</legend>
            {decision.options.map((option) => (
              <label key={option.id} class="option">
                <input
                  type="checkbox"
                  checked={chosen.includes(option.id)}
                  onChange={(event) =>
                    setChosen((list) => ((event.target as HTMLInputElement).checked ? [...list, option.id] : list.filter((id) => id !== option.id)))
                  }
                />
                {option.label}
                {option.recommended && ' (recommended)'} <span class="hint">{option.description}</span>
              </label>
            ))}
            <button type="button" disabled={busy || chosen.length === 0} onClick={() => void answer({ decision: chosen[0]!, decisions: chosen.slice(1) })}>
              Answer
            </button>
          </fieldset>
        ) : (
          <div class="options" data-write role="group" aria-label="Answers">
            {decision.options.map((option) => (
              <button type="button" key={option.id} disabled={busy} class={option.recommended ? 'primary' : undefined} onClick={() => void answer({ decision: option.id })} title={option.description}>
                {option.label}
                {option.recommended && ' (recommended)'}
              </button>
            ))}
          </div>
        )
      ) : (
        <p class="hint">You may read this decision; answering it needs write access to its run.</p>
      )}
      {writable && decision.allow_other && (
        <form
          class="other"
          data-write
          onSubmit={(event) => {
            event.preventDefault();
            if (other.trim()) void answer({ decision: 'other', provided_value: other.trim() });
          }}
        >
          <label for={`${headingId}-other`}>Another answer</label>
          <input id={`${headingId}-other`} value={other} onInput={(event) => setOther((event.target as HTMLInputElement).value)} />
          <button type="submit" disabled={busy || !other.trim()}>
            Answer with this
          </button>
        </form>
      )}
    </li>
  );
}
