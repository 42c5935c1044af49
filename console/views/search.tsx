import { useEffect, useState } from 'preact/hooks';
import type { FindHit } from '../../sdk/index.js';
import { client, messageOf } from '../session.js';
import { href, navigate, route } from '../router.js';
import { short } from '../format.js';

/** A snippet with its matched spans marked. */
function Snippet({ text, offsets }: { text: string; offsets: Array<[number, number]> }) {
  const parts = [];
  let at = 0;
  for (const [start, end] of [...offsets].sort((a, b) => a[0] - b[0])) {
    if (start < at || end > text.length) continue;
    parts.push(text.slice(at, start), <mark key={start}>{text.slice(start, end)}</mark>);
    at = end;
  }
  parts.push(text.slice(at));
  return <p class="snippet">{parts}</p>;
}

/** Find (GET /v1/find): ranked hits over conversations and files, with snippets; the query lives in the URL. */
export function Search() {
  const q = new URLSearchParams(route.value.split('?')[1] ?? '').get('q') ?? '';
  const [text, setText] = useState(q);
  const [hits, setHits] = useState<FindHit[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    setText(q);
    if (!q) return setHits(null);
    let live = true;
    void client.value.find({ query: { q, limit: 50 } }).then(({ data, error: refusal }) => {
      if (!live) return;
      if (data) {
        setHits(data.data);
        setError(null);
      } else setError(messageOf(refusal));
    });
    return () => void (live = false);
  }, [q]);
  return (
    <main id="main">
      <h1>Search</h1>
      <form
        class="inline"
        role="search"
        onSubmit={(event) => {
          event.preventDefault();
          if (text.trim()) navigate(`/search?q=${encodeURIComponent(text.trim())}`);
        }}
      >
        <label for="search-q">Find</label>
        <input id="search-q" type="search" value={text} onInput={(event) => setText((event.target as HTMLInputElement).value)} />
        <button type="submit" disabled={!text.trim()}>
          Search
        </button>
      </form>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {hits !== null && hits.length === 0 && <p>No match for “{q}”.</p>}
      {hits !== null && hits.length > 0 && (
        <ol class="hits" aria-label={`Results for ${q}`}>
          {hits.map((hit, index) => (
            <li key={`${hit.type}:${hit.thread ?? hit.record ?? index}`} data-hit={hit.thread ?? hit.record ?? ''}>
              {hit.type === 'thread' && hit.thread ? (
                <a href={href(`/threads/${hit.thread}${hit.record ? `?at=${hit.record}` : ''}`)}>{hit.title || short(hit.thread, 20)}</a>
              ) : (
                <span class="title">{hit.title}</span>
              )}{' '}
              <span class="hint">
                {hit.type} · score {hit.score.toFixed(2)}
              </span>
              <Snippet text={hit.snippet.text} offsets={hit.snippet.offsets} />
            </li>
          ))}
        </ol>
      )}
    </main>
  );
}
