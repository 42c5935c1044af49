import { useEffect, useState } from 'preact/hooks';
import type { Record as LoomRecord } from '../../sdk/index.js';
import { client, messageOf } from '../session.js';
import { href } from '../router.js';

/** Bodies past this many characters start collapsed: one huge body must not freeze the page. */
const COLLAPSE_AT = 4_000;

/** How a later record points at this one (spec §3.2: a correction KNOW supersedes, a DO cancels or fulfils). */
const POINTERS = [
  ['supersedes', 'Corrected by'],
  ['cancels', 'Cancelled by'],
  ['fulfills', 'Fulfilled by'],
] as const;

const pointer = (record: LoomRecord, key: string): string | null => {
  const value = (record.body as { [key: string]: unknown })[key];
  return typeof value === 'string' && /^[0-9a-f]{64}$/.test(value) ? value : null;
};

export function RecordView({ id }: { id: string }) {
  const [record, setRecord] = useState<LoomRecord | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [open, setOpen] = useState(false);
  const [pointing, setPointing] = useState<LoomRecord[] | null>(null);
  useEffect(() => {
    setRecord(null);
    setPointing(null);
    setOpen(false);
    const loom = client.value;
    void loom.getRecord({ path: { id } }).then(async ({ data, error: refusal }) => {
      if (!data) return setError(messageOf(refusal));
      setRecord(data);
      // The records of its thread that correct, cancel or fulfil it: one indexed query on the thread.
      const later = await loom.queryRecords({ body: { thread: data.thread, filter: { $or: POINTERS.map(([key]) => ({ [`body.${key}`]: id })) }, sort: { sequence: 1 }, limit: 100 } });
      setPointing(later.data?.data ?? []);
    });
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
      {POINTERS.some(([key]) => pointer(record, key)) && (
        <dl class="fields" data-points-at>
          {POINTERS.map(([key]) => {
            const target = pointer(record, key);
            return target ? (
              <>
                <dt>{key === 'supersedes' ? 'Corrects' : key === 'cancels' ? 'Cancels' : 'Fulfils'}</dt>
                <dd>
                  <a href={href(`/records/${target}`)}>
                    <code>{target}</code>
                  </a>
                  {typeof record.body['reason'] === 'string' && ` (${record.body['reason']})`}
                </dd>
              </>
            ) : null;
          })}
        </dl>
      )}
      <h2>Corrections and cancellations</h2>
      {pointing === null ? (
        <p>Looking…</p>
      ) : pointing.length === 0 ? (
        <p data-pointing="0">No record corrects, cancels or fulfils this one.</p>
      ) : (
        <ul class="plain" data-pointing={pointing.length}>
          {pointing.map((later) => {
            const [key, label] = POINTERS.find(([key]) => pointer(later, key) === id)!;
            return (
              <li key={later.id} data-pointer={key}>
                {label}{' '}
                <a href={href(`/records/${later.id}`)}>
                  <code>{later.id.slice(0, 16)}…</code>
                </a>{' '}
                ({later.act} by <code>{later.actor}</code>
                {typeof later.body['reason'] === 'string' && `: ${later.body['reason']}`})
              </li>
            );
          })}
        </ul>
      )}
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
