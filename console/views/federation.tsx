import { useEffect, useState } from 'preact/hooks';
import type { ConsentGrant, FederationPair, SyncHealth, SyncPair } from '../../sdk/index.js';
import { can, client, messageOf } from '../session.js';
import { Confirm } from '../confirm.js';
import { short } from '../format.js';
import { Time } from '../time.js';

type Slow = { pair_id: string; p95_delivery_latency_ms: number | null };

/**
 * Federation (spec §4.10): the pairs made by the handshake with their state,
 * lag and last error; the sync pairs pulling peers directly; consent grants in
 * force; sync health. Every federation route needs federation:manage, so a
 * caller without it gets a sentence and no call (no 403 on the page). Verbs:
 * pause and resume (reversible), pull now (kick the pair's sync pair), revoke
 * (terminal, asked twice). Re-read every 5 s and after every verb: what the
 * table shows is what the server answered, never an assumption.
 */
export function Federation() {
  const manage = can('federation:manage');
  const [pairs, setPairs] = useState<FederationPair[] | null>(null);
  const [syncPairs, setSyncPairs] = useState<SyncPair[]>([]);
  const [health, setHealth] = useState<SyncHealth | null>(null);
  const [consent, setConsent] = useState<ConsentGrant[]>([]);
  const [readAt, setReadAt] = useState<Date | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [enabled, setEnabled] = useState<boolean | null>(null);

  const load = async () => {
    const loom = client.value;
    const [p, s, h, c] = await Promise.all([loom.listFederationPairs(), loom.listSyncPairs(), loom.getSyncHealth(), loom.listConsentGrants()]);
    const refusal = p.error ?? s.error ?? h.error ?? c.error;
    if (refusal) setError(messageOf(refusal));
    if (p.data) setPairs(p.data.data);
    if (s.data) setSyncPairs(s.data.data);
    if (h.data) setHealth(h.data);
    if (c.data) setConsent(c.data.data);
    setReadAt(new Date());
  };
  useEffect(() => {
    if (!manage) return;
    let timer: ReturnType<typeof setInterval> | undefined;
    // An embedder may leave the federation plugin out: health (open to anyone) says so, and the view makes no call that would 404.
    void client.value.getHealth().then(({ data }) => {
      const on = data?.federation.enabled ?? false;
      setEnabled(on);
      if (!on) return;
      void load();
      timer = setInterval(() => void load(), 5_000);
    });
    return () => clearInterval(timer);
  }, []);

  /** Runs a verb, shows the server's refusal if any, then re-reads everything. */
  const act = async (call: () => Promise<{ error?: unknown }>) => {
    setBusy(true);
    const { error: refusal } = await call();
    setBusy(false);
    setError(refusal ? messageOf(refusal) : null);
    await load();
  };

  if (!manage)
    return (
      <main id="main">
        <h1>Federation</h1>
        <p>Federation pairs, sync and consent need the federation:manage scope, which this credential does not hold.</p>
      </main>
    );

  if (enabled === false)
    return (
      <main id="main">
        <h1>Federation</h1>
        <p data-federation="off">Federation is off on this instance (the federation plugin is not loaded).</p>
      </main>
    );

  const bySync = new Map(syncPairs.map((pair) => [pair.pair_id, pair]));
  const federated = new Set((pairs ?? []).map((pair) => pair.sync_pair_id));
  const direct = syncPairs.filter((pair) => !federated.has(pair.pair_id));
  const p95 = new Map(((health?.slowest_pairs ?? []) as Slow[]).map((slow) => [slow.pair_id, slow.p95_delivery_latency_ms]));
  const loom = () => client.value;

  return (
    <main id="main">
      <h1>Federation</h1>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {readAt && (
        <p class="hint" data-read-at>
          Read at <Time at={readAt} timeOnly /> (every 5 s).
        </p>
      )}
      {health && (
        <section aria-labelledby="sync-health-heading">
          <h2 id="sync-health-heading">Sync health</h2>
          <dl class="fields" data-sync-health={health.pairs_total}>
            <dt>Sync pairs</dt>
            <dd>
              {health.pairs_total}
              {health.pairs_total > 0 &&
                ` (${Object.entries(health.pairs_by_state)
                  .map(([state, n]) => `${n} ${state}`)
                  .join(', ')})`}
            </dd>
            <dt>Pulled, last hour</dt>
            <dd data-stat>{health.records_pulled_last_hour} records</dd>
            <dt>Delivery latency</dt>
            <dd data-stat>{health.mean_delivery_latency_ms === null ? 'no samples yet' : `mean ${health.mean_delivery_latency_ms} ms, p95 ${health.p95_delivery_latency_ms ?? '–'} ms`}</dd>
            <dt>Drift alerts</dt>
            <dd>{health.drift_alerts.length === 0 ? 'none' : `${health.drift_alerts.length} quarantined records (clock conflicts)`}</dd>
          </dl>
        </section>
      )}
      <section aria-labelledby="pairs-heading">
        <h2 id="pairs-heading">Pairs</h2>
        {pairs !== null && pairs.length === 0 && <p>No pairs. Pair with another instance with POST /v1/federation/pairs (loom federation pair &lt;url&gt;).</p>}
        {pairs !== null && pairs.length > 0 && (
          <table class="grid">
            <caption class="sr-only">Federation pairs</caption>
            <thead>
              <tr>
                <th scope="col">Peer</th>
                <th scope="col">Role</th>
                <th scope="col">State</th>
                <th scope="col">Lag</th>
                <th scope="col">Last error</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {pairs.map((pair) => {
                const sync = bySync.get(pair.sync_pair_id);
                const peer = hostOf(pair.peer_url);
                const live = pair.state !== 'revoked' && pair.state !== 'establishing';
                return (
                  <tr key={pair.pair_id} data-pair={pair.pair_id} data-state={pair.state}>
                    <td>
                      <code>{pair.peer_url}</code>
                      <br />
                      <code class="hint">{short(pair.peer_did, 20)}</code>
                    </td>
                    <td>{pair.role}</td>
                    <td>
                      {pair.state}
                      {pair.state === 'revoked' && pair.revoked_reason && ` (${pair.revoked_reason})`}
                    </td>
                    <td data-lag>
                      <Lag lastSync={sync?.last_sync_at ?? pair.last_sync_at} p95={p95.get(pair.sync_pair_id) ?? null} />
                    </td>
                    <td>
                      <LastError error={sync?.last_error ?? pair.last_error} />
                    </td>
                    <td class="actions">
                      {live && pair.state !== 'paused' && (
                        <button type="button" data-write disabled={busy} aria-label={`Pause pair with ${peer}`} onClick={() => void act(() => loom().pauseFederationPair({ path: { id: pair.pair_id } }))}>
                          Pause
                        </button>
                      )}
                      {pair.state === 'paused' && (
                        <button type="button" data-write disabled={busy} aria-label={`Resume pair with ${peer}`} onClick={() => void act(() => loom().resumeFederationPair({ path: { id: pair.pair_id } }))}>
                          Resume
                        </button>
                      )}
                      {live && pair.state !== 'paused' && sync && (
                        <button type="button" data-write disabled={busy} aria-label={`Pull now from ${peer}`} onClick={() => void act(() => loom().kickSyncPair({ path: { id: sync.pair_id } }))}>
                          Pull now
                        </button>
                      )}
                      {pair.state !== 'revoked' && (
                        <Confirm
                          label={`Revoke`}
                          question={`Revoke the pair with ${peer}? Its tokens die at once; this cannot be undone.`}
                          confirm={`Revoke pair with ${peer}`}
                          disabled={busy}
                          onConfirm={() => act(() => loom().revokeFederationPair({ path: { id: pair.pair_id }, body: { reason: 'revoked in the console' } }))}
                        />
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        )}
      </section>
      {direct.length > 0 && (
        <section aria-labelledby="sync-pairs-heading">
          <h2 id="sync-pairs-heading">Sync pairs</h2>
          <p class="hint">Pulls configured directly (POST /v1/sync/pairs), outside a handshake pair.</p>
          <table class="grid">
            <caption class="sr-only">Sync pairs</caption>
            <thead>
              <tr>
                <th scope="col">Peer</th>
                <th scope="col">Into</th>
                <th scope="col">State</th>
                <th scope="col">Lag</th>
                <th scope="col">Last error</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {direct.map((pair) => {
                const peer = hostOf(pair.peer_url);
                return (
                  <tr key={pair.pair_id} data-sync-pair={pair.pair_id} data-state={pair.state}>
                    <td>
                      <code>{pair.peer_url}</code>
                    </td>
                    <td>
                      {pair.target_namespace}
                      {pair.thread_id && (
                        <>
                          {' '}
                          / <code>{pair.thread_id}</code>
                        </>
                      )}
                    </td>
                    <td>
                      {pair.state}
                      {pair.retries > 0 && `, ${pair.retries} retries`}
                    </td>
                    <td data-lag>
                      <Lag lastSync={pair.last_sync_at} p95={p95.get(pair.pair_id) ?? null} />
                    </td>
                    <td>
                      <LastError error={pair.last_error} />
                    </td>
                    <td class="actions">
                      {pair.state === 'paused' ? (
                        <button type="button" data-write disabled={busy} aria-label={`Resume sync from ${peer}`} onClick={() => void act(() => loom().resumeSyncPair({ path: { id: pair.pair_id } }))}>
                          Resume
                        </button>
                      ) : (
                        <>
                          <button type="button" data-write disabled={busy} aria-label={`Pause sync from ${peer}`} onClick={() => void act(() => loom().pauseSyncPair({ path: { id: pair.pair_id } }))}>
                            Pause
                          </button>{' '}
                          <button type="button" data-write disabled={busy} aria-label={`Pull now from ${peer} (sync)`} onClick={() => void act(() => loom().kickSyncPair({ path: { id: pair.pair_id } }))}>
                            Pull now
                          </button>
                        </>
                      )}{' '}
                      <Confirm
                        label="Remove"
                        question={`Stop pulling ${peer} and forget the cursor?`}
                        confirm={`Remove sync from ${peer}`}
                        disabled={busy}
                        onConfirm={() => act(() => loom().deleteSyncPair({ path: { id: pair.pair_id } }))}
                      />
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </section>
      )}
      <section aria-labelledby="consent-heading">
        <h2 id="consent-heading">Consent grants</h2>
        {consent.length === 0 ? (
          <p>No consent grant is in force: nothing of this instance's namespaces is served to a peer beyond hashes.</p>
        ) : (
          <table class="grid">
            <caption class="sr-only">Consent grants in force</caption>
            <thead>
              <tr>
                <th scope="col">From</th>
                <th scope="col">To</th>
                <th scope="col">Levels</th>
                <th scope="col">Threads</th>
                <th scope="col">Purpose</th>
                <th scope="col">Expires</th>
              </tr>
            </thead>
            <tbody>
              {consent.map((grant) => (
                <tr key={grant.id} data-consent={grant.id}>
                  <td>{grant.source_namespace}</td>
                  <td>{grant.target_namespace}</td>
                  <td>
                    {grant.hash_levels.join(', ')} (served {grant.served_level}
                    {grant.two_sided ? ', two-sided' : ''})
                  </td>
                  <td>{grant.threads.includes('*') ? 'all' : grant.threads.map((thread) => <code key={thread}>{thread} </code>)}</td>
                  <td>{grant.purpose ?? '–'}</td>
                  <td>{grant.expires_at ? <Time at={grant.expires_at} /> : 'never'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        {consent.length > 0 && <p class="hint">A grant is revoked by a core.consent.revoke.v1 record naming its id.</p>}
      </section>
    </main>
  );
}

const hostOf = (url: string): string => {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
};

function Lag({ lastSync, p95 }: { lastSync: string | null; p95: number | null }) {
  if (!lastSync) return <>never pulled</>;
  return (
    <>
      pulled <Time at={lastSync} timeOnly />
      {p95 !== null && `, p95 ${p95} ms`}
    </>
  );
}

function LastError({ error }: { error: { code: string; message: string; at: string } | null }) {
  if (!error) return <>none</>;
  return (
    <span class="error">
      {error.code}: {error.message} (<Time at={error.at} timeOnly />)
    </span>
  );
}
