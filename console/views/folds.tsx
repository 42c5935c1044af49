import { useEffect, useState } from 'preact/hooks';
import type { FoldAnswer, FoldList } from '../../sdk/index.js';
import { client, messageOf } from '../session.js';
import { Time } from '../time.js';

type FoldEntry = FoldList['data'][number];

/** Values past this many characters start collapsed. */
const COLLAPSE_AT = 8_000;

/**
 * The fold browser: every registered fold; a global one read as is, a
 * per-thread one for a thread id. Each answer shows its watermark (the
 * highest record sequence it covers) and the time it was read, so a stale
 * value never passes for a current one.
 */
export function Folds() {
  const [folds, setFolds] = useState<FoldEntry[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [chosen, setChosen] = useState<string>('');
  const [thread, setThread] = useState('');
  const [answer, setAnswer] = useState<{ fold: FoldAnswer; readAt: Date } | null>(null);
  const [open, setOpen] = useState(false);

  useEffect(() => {
    void client.value.listFolds().then(({ data, error: refusal }) => (data ? setFolds(data.data) : setError(messageOf(refusal))));
  }, []);

  const fold = folds?.find((entry) => entry.name === chosen) ?? null;
  const read = async () => {
    if (!fold) return;
    setError(null);
    setOpen(false);
    const loom = client.value;
    const { data, error: refusal } =
      fold.scope === 'global' ? await loom.getGlobalFold({ path: { name: fold.name } }) : await loom.getThreadFold({ path: { name: fold.name, key: thread.trim() } });
    if (data) setAnswer({ fold: data, readAt: new Date() });
    else {
      setAnswer(null);
      setError(messageOf(refusal));
    }
  };
  const value = answer ? JSON.stringify(answer.fold.value, null, 2) : '';

  return (
    <main id="main">
      <h1>Folds</h1>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <form
        class="inline"
        onSubmit={(event) => {
          event.preventDefault();
          void read();
        }}
      >
        <label for="fold-name">Fold</label>
        <select id="fold-name" value={chosen} onChange={(event) => (setChosen((event.target as HTMLSelectElement).value), setAnswer(null))}>
          <option value="">choose a fold</option>
          {(folds ?? []).map((entry) => (
            <option key={entry.name} value={entry.name}>
              {entry.name} ({entry.scope})
            </option>
          ))}
        </select>
        {fold?.scope === 'thread' && (
          <>
            <label for="fold-thread">Thread</label>
            <input id="fold-thread" value={thread} placeholder="th_…" onInput={(event) => setThread((event.target as HTMLInputElement).value)} />
          </>
        )}
        <button type="submit" disabled={!fold || (fold.scope === 'thread' && !thread.trim())}>
          Read
        </button>
      </form>
      {fold && <p class="hint">{fold.description}</p>}
      {answer && (
        <section aria-labelledby="fold-answer" data-fold={answer.fold.fold_name} data-watermark={answer.fold.watermark}>
          <h2 id="fold-answer">{answer.fold.fold_name}</h2>
          <p>
            Watermark <strong>{answer.fold.watermark}</strong> (the highest record sequence covered), read at <Time at={answer.readAt} timeOnly />.
          </p>
          <pre class="body" tabIndex={0}>
            {value.length > COLLAPSE_AT && !open ? `${value.slice(0, COLLAPSE_AT)}…` : value}
          </pre>
          {value.length > COLLAPSE_AT && !open && (
            <button type="button" onClick={() => setOpen(true)}>
              Show the whole value ({value.length.toLocaleString()} characters)
            </button>
          )}
        </section>
      )}
    </main>
  );
}
