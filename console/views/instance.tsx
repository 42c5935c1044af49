import { useEffect, useState } from 'preact/hooks';
import type { EngineHealth, FleetStatus, Health } from '../../sdk/index.js';
import { can, client, messageOf } from '../session.js';
import { Time } from '../time.js';
import { Confirm } from '../confirm.js';
import { formatMetric, summariseMetrics, type MetricSummary } from '../metrics.js';

/**
 * The instance: health and identity (anyone), readiness, and for an
 * operator holding config:read the engine's loops and the fleet's freezes.
 * Read-only; each figure carries the time it was read.
 */
export function Instance() {
  const [health, setHealth] = useState<Health | null>(null);
  const [ready, setReady] = useState<boolean | null>(null);
  const [engine, setEngine] = useState<EngineHealth | null>(null);
  const [fleet, setFleet] = useState<FleetStatus | null>(null);
  const [metrics, setMetrics] = useState<MetricSummary[] | null>(null);
  const [stopReason, setStopReason] = useState('');
  const [readAt, setReadAt] = useState<Date | null>(null);
  const [error, setError] = useState<string | null>(null);
  const operator = can('config:read');
  const admin = can('admin');
  const [namespace, setNamespace] = useState('');
  const [level, setLevel] = useState<'soft' | 'hard'>('soft');
  const [busy, setBusy] = useState(false);

  const load = async () => {
    const loom = client.value;
    const [h, r] = await Promise.all([loom.getHealth(), loom.getReadiness()]);
    if (h.data) setHealth(h.data);
    else setError(messageOf(h.error));
    setReady(r.response.ok);
    if (operator) {
      const [e, f, m] = await Promise.all([loom.getEngineHealth(), loom.getFleetStatus(), loom.getMetrics({ parseAs: 'text' })]);
      setEngine(e.data ?? null);
      setFleet(f.data ?? null);
      setMetrics(typeof m.data === 'string' ? summariseMetrics(m.data) : null);
      if (!e.data || !f.data) setError(messageOf(e.error ?? f.error));
    }
    setReadAt(new Date());
  };
  /** Freeze or thaw a namespace (admin): the answer is re-read from the fleet, not assumed. */
  const control = async (action: 'freeze' | 'thaw', name: string) => {
    setBusy(true);
    const loom = client.value;
    const { error: refusal } = action === 'freeze' ? await loom.freezeNamespace({ body: { namespace: name, level } }) : await loom.thawNamespace({ body: { namespace: name } });
    setBusy(false);
    setError(refusal ? messageOf(refusal) : null);
    if (!refusal && action === 'freeze') setNamespace('');
    await load();
  };

  /** The emergency stop (admin): the dispatch dial at 0 on every instance, or cleared. */
  const emergency = async (active: boolean) => {
    setBusy(true);
    const reason = stopReason.trim();
    const { error: refusal } = await client.value.setEmergencyStop({ body: { active, ...(active && reason ? { reason } : {}) } });
    setBusy(false);
    setError(refusal ? messageOf(refusal) : null);
    if (!refusal) setStopReason('');
    await load();
  };

  useEffect(() => {
    void load();
    const timer = setInterval(() => void load(), 5_000);
    return () => clearInterval(timer);
  }, []);

  return (
    <main id="main">
      <h1>Instance</h1>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {readAt && <p class="hint" data-read-at>Read at <Time at={readAt} timeOnly /> (every 5 s).</p>}
      {health && (
        <section aria-labelledby="health-heading">
          <h2 id="health-heading">Health</h2>
          <dl class="fields" data-health={health.status}>
            <dt>Status</dt>
            <dd>
              {health.status}
              {ready !== null && (ready ? ', ready' : ', not ready')}
            </dd>
            <dt>Version</dt>
            <dd>{health.version}</dd>
            <dt>Instance</dt>
            <dd>
              <code>{health.instance_did}</code>
            </dd>
            <dt>Storage</dt>
            <dd>
              {health.storage.backend}
              {health.storage.shared_log && ' (shared log)'}
              {health.storage.leader ? ', leader' : ', follower'}; probe {health.storage.probe.ok ? 'ok' : `failing: ${health.storage.probe.error ?? ''}`}
            </dd>
            {health.watchers && (
              <>
                <dt>Thread watches</dt>
                <dd>
                  {health.watchers.open} open of {health.watchers.max}
                </dd>
              </>
            )}
            <dt>Federation</dt>
            <dd>{health.federation.enabled ? `${health.federation.pairs} pairs` : 'off'}</dd>
          </dl>
          {health.consumers && health.consumers.length > 0 && (
            <table class="grid">
              <caption>Log consumers</caption>
              <thead>
                <tr>
                  <th scope="col">Consumer</th>
                  <th scope="col">State</th>
                  <th scope="col">Lag</th>
                  <th scope="col">Last error</th>
                </tr>
              </thead>
              <tbody>
                {health.consumers.map((consumer) => (
                  <tr key={consumer.name}>
                    <td>{consumer.name}</td>
                    <td>{consumer.state.replace(/_/g, ' ')}</td>
                    <td class="num">{consumer.lag}</td>
                    <td>{consumer.last_error ? <>
                          {consumer.last_error.message} (<Time at={consumer.last_error.at} />)
                        </> : 'none'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </section>
      )}
      {engine && (
        <section aria-labelledby="engine-heading">
          <h2 id="engine-heading">Engine</h2>
          <dl class="fields" data-engine={engine.status}>
            <dt>Status</dt>
            <dd>{engine.status}</dd>
            <dt>Uptime</dt>
            <dd>{Math.round(engine.uptime_secs)} s</dd>
            <dt>Reconcile queue</dt>
            <dd>
              {engine.reconcile.queue_depth} of {engine.reconcile.queue_capacity}; {engine.reconcile.dispatched} dispatched, {engine.reconcile.delivery_failures} failed deliveries
            </dd>
            <dt>TICK</dt>
            <dd>
              every {engine.tick.interval_secs} s, {engine.tick.runs} runs
            </dd>
          </dl>
        </section>
      )}
      {metrics && (
        <section aria-labelledby="metrics-heading">
          <h2 id="metrics-heading">Metrics</h2>
          <p class="hint">Key series of GET /metrics (Prometheus text), summed over their labels.</p>
          <dl class="fields" data-metrics>
            {metrics.map((metric) => (
              <div class="pair" key={metric.key} data-metric={metric.key} data-value={metric.value ?? ''}>
                <dt>{metric.label}</dt>
                <dd data-stat>{formatMetric(metric)}</dd>
              </div>
            ))}
          </dl>
        </section>
      )}
      {fleet && (
        <section aria-labelledby="fleet-heading">
          <h2 id="fleet-heading">Fleet</h2>
          <p data-emergency={fleet.emergency ? 'on' : 'off'}>
            Emergency stop:{' '}
            {fleet.emergency ? (
              <>
                engaged since <Time at={fleet.emergency.since} />
              </>
            ) : (
              'off'
            )}
            {fleet.emergency?.reason && ` (${fleet.emergency.reason})`}
          </p>
          {admin && fleet.emergency && (
            <p>
              <button type="button" data-write disabled={busy} onClick={() => void emergency(false)}>
                Release the emergency stop
              </button>
            </p>
          )}
          {admin && !fleet.emergency && (
            <div class="inline" data-write>
              <label for="stop-reason">Reason (optional)</label>
              <input id="stop-reason" value={stopReason} maxLength={500} onInput={(event) => setStopReason((event.target as HTMLInputElement).value)} />
              <Confirm label="Emergency stop" question="Stop dispatch on every instance of the fleet?" confirm="Engage the emergency stop" disabled={busy} onConfirm={() => emergency(true)} />
            </div>
          )}
          {fleet.freezes.length === 0 ? (
            <p>No namespace is frozen.</p>
          ) : (
            <ul class="plain" aria-label="Frozen namespaces">
              {fleet.freezes.map((freeze) => (
                <li key={freeze.namespace} data-freeze={freeze.namespace}>
                  {freeze.namespace}: {freeze.hard ? 'hard' : freeze.level} freeze since <Time at={freeze.since} />
                  {freeze.reason && ` (${freeze.reason})`}{' '}
                  {admin && (
                    <button type="button" data-write disabled={busy} onClick={() => void control('thaw', freeze.namespace)}>
                      Thaw {freeze.namespace}
                    </button>
                  )}
                </li>
              ))}
            </ul>
          )}
          {admin && (
            <form
              class="inline"
              data-write
              onSubmit={(event) => {
                event.preventDefault();
                if (namespace.trim()) void control('freeze', namespace.trim());
              }}
            >
              <label for="freeze-namespace">Namespace</label>
              <input id="freeze-namespace" value={namespace} onInput={(event) => setNamespace((event.target as HTMLInputElement).value)} />
              <label for="freeze-level">Level</label>
              <select id="freeze-level" value={level} onChange={(event) => setLevel((event.target as HTMLSelectElement).value as 'soft' | 'hard')}>
                <option value="soft">soft (no new INTEND, DO, CALL)</option>
                <option value="hard">hard (no writes)</option>
              </select>
              <button type="submit" disabled={busy || !namespace.trim()}>
                Freeze
              </button>
            </form>
          )}
          <p>
            {fleet.instances.length} instance{fleet.instances.length === 1 ? '' : 's'} reporting heartbeats
            {fleet.instances.length > 0 && `: ${fleet.instances.filter((instance) => instance.live).length} live`}.
          </p>
        </section>
      )}
    </main>
  );
}
