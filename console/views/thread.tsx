import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { client } from '../session.js';
import { href } from '../router.js';
import { short, summary } from '../format.js';
import { ThreadFeed } from '../thread-feed.js';

/** Fixed row height: positions are arithmetic, so the DOM holds only the rows in view. */
const ROW = 36;
const OVERSCAN = 8;

/** A thread's records, newest first, virtualised, with the live tail. */
export function Thread({ id, at }: { id: string; at?: string | undefined }) {
  const feed = useMemo(() => new ThreadFeed(client.value, id), [id]);
  const scroller = useRef<HTMLDivElement>(null);
  const [top, setTop] = useState(0);
  const [height, setHeight] = useState(600);

  useEffect(() => {
    // A live row enters at the top: keep what the reader looks at still unless they stand at the top.
    feed.onLive = (added) => {
      const element = scroller.current;
      if (element && element.scrollTop > 0) {
        element.scrollTop += added * ROW;
        feed.behind.value += added;
      }
    };
    void feed.open().then(() => (at ? feed.locate(at) : undefined));
    return () => feed.close();
  }, [feed]);

  // Scroll anchored to a record: the asked-for row a third of the way down the view.
  const anchor = feed.anchor.value;
  useEffect(() => {
    const element = scroller.current;
    if (!anchor || !element) return;
    element.scrollTop = Math.max(0, anchor.index * ROW - Math.floor(element.clientHeight / 3));
    setTop(element.scrollTop);
  }, [anchor]);

  useEffect(() => {
    const element = scroller.current;
    if (!element) return;
    const measure = () => setHeight(element.clientHeight);
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    return () => observer.disconnect();
  }, []);

  void feed.version.value; // redraw on every change of the feed
  const total = feed.total.value;
  const first = Math.max(0, Math.floor(top / ROW) - OVERSCAN);
  const last = Math.min(total, Math.ceil((top + height) / ROW) + OVERSCAN);
  const rows = [];
  for (let index = first; index < last; index++) {
    const row = feed.row(index);
    rows.push(
      <div role="listitem" class={row && anchor?.id === row.record.id ? 'row anchored' : 'row'} aria-current={row && anchor?.id === row.record.id ? 'location' : undefined} key={row?.record.id ?? `slot-${index}`} style={{ transform: `translateY(${index * ROW}px)` }} data-id={row?.record.id} data-index={index} aria-setsize={total} aria-posinset={index + 1}>
        {row ? (
          <a href={href(`/records/${row.record.id}`)}>
            <span class="act">{row.record.act}</span>
            <span class="summary">{summary(row.record.body)}</span>
            <span class="meta">
              {short(row.record.actor, 24)} · #{row.sequence}
            </span>
          </a>
        ) : (
          <span class="placeholder">loading…</span>
        )}
      </div>,
    );
  }

  const state = feed.state.value;
  const behind = feed.behind.value;
  return (
    <main id="main" class="thread">
      <h1>
        Thread <code title={id}>{short(id, 20)}</code>
      </h1>
      <p class="stream" role="status" data-stream={behind > 0 ? 'behind' : state}>
        <span class={`dot ${state}`} aria-hidden="true" />
        {state === 'live' ? 'Live' : state === 'reconnecting' ? 'Reconnecting…' : state === 'connecting' ? 'Connecting…' : 'Closed'}
        {behind > 0 && (
          <>
            {' · '}behind by {behind}{' '}
            <button
              type="button"
              onClick={() => {
                scroller.current?.scrollTo({ top: 0 });
                feed.behind.value = 0;
              }}
            >
              Show newest
            </button>
          </>
        )}
        {' · '}
        {total} records
      </p>
      {feed.error.value && state === 'closed' && (
        <p role="alert" class="error">
          {feed.error.value}
        </p>
      )}
      <div
        class="scroller"
        ref={scroller}
        tabIndex={0}
        aria-label={`Records of the thread, newest first (${total})`}
        onScroll={(event) => {
          const scrollTop = (event.currentTarget as HTMLDivElement).scrollTop;
          setTop(scrollTop);
          if (scrollTop === 0) feed.behind.value = 0;
        }}
      >
        <div role="list" class="spacer" style={{ height: `${total * ROW}px` }} aria-label="Records">
          {rows}
        </div>
      </div>
    </main>
  );
}
