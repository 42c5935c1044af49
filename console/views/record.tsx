import { useEffect, useState } from 'preact/hooks';
import type { Record as LoomRecord } from '../../sdk/index.js';
import { client, messageOf } from '../session.js';
import { href } from '../router.js';

/** Bodies past this many characters start collapsed: one huge body must not freeze the page. */
const COLLAPSE_AT = 4_000;

export function RecordView({ id }: { id: string }) {
  const [record, setRecord] = useState<LoomRecord | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [open, setOpen] = useState(false);
  useEffect(() => {
    setRecord(null);
    setOpen(false);
    void client.value.getRecord({ path: { id } }).then(({ data, error: refusal }) => (data ? setRecord(data) : setError(messageOf(refusal))));
  }, [id]);
  if (error)
    return (
      <main id="main">
        <h1>Record</h1>
        <p role="alert" class="error">
          {error}
        </p>
      </main>
    );
  if (!record)
    return (
      <main id="main">
        <h1>Record</h1>
        <p>Loading…</p>
      </main>
    );
  const body = JSON.stringify(record.body, null, 2);
  const large = body.length > COLLAPSE_AT;
  return (
    <main id="main">
      <h1>
        Record <code>{record.id.slice(0, 16)}…</code>
      </h1>
      <dl class="fields">
        <dt>Id</dt>
        <dd>
          <code>{record.id}</code>
        </dd>
        <dt>Thread</dt>
        <dd>
          <a href={href(`/threads/${record.thread}?at=${record.id}`)}>
            <code>{record.thread}</code>
          </a>
        </dd>
        <dt>Act</dt>
        <dd>{record.act}</dd>
        <dt>Actor</dt>
        <dd>
          <code>{record.actor}</code>
        </dd>
        <dt>Clock</dt>
        <dd>{record.clock}</dd>
        <dt>Data type</dt>
        <dd>{record.data_type}</dd>
        <dt>Parents</dt>
        <dd>
          {record.parents.length === 0 ? (
            'none (a root)'
          ) : (
            <ul class="plain">
              {record.parents.map((parent) => (
                <li key={parent}>
                  <a href={href(`/records/${parent}`)}>
                    <code>{parent}</code>
                  </a>
                </li>
              ))}
            </ul>
          )}
        </dd>
        <dt>Judged by</dt>
        <dd>
          {record.judged_by ? (
            <a href={href(`/records/${record.judged_by}`)}>
              <code>{record.judged_by}</code>
            </a>
          ) : (
            'none'
          )}
        </dd>
      </dl>
      <h2>Body</h2>
      {large && !open ? (
        <>
          <pre class="body" tabIndex={0}>
            {body.slice(0, COLLAPSE_AT)}…
          </pre>
          <button type="button" onClick={() => setOpen(true)}>
            Show the whole body ({body.length.toLocaleString()} characters)
          </button>
        </>
      ) : (
        <pre class="body" tabIndex={0}>
          {body}
        </pre>
      )}
    </main>
  );
}
