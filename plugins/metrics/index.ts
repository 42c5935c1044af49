/**
 * The metrics plugin: `GET /metrics` in the Prometheus text format
 * (prom-client, a registry of its own): requests by route, method and
 * status with latency histograms; records ingested and the size of each
 * published batch (a group commit on a log of its own); the log's head;
 * open thread watches; fold lag; the process (CPU, memory, event-loop lag,
 * GC, handles). Scraping needs `config:read`, the operators' read scope,
 * so a public bind does not expose traffic figures; a scraper gets a
 * service account with just that scope.
 */
import { ConsumerRegistryToken, type ConsumerStatus } from '../../core/engine/log-consumer.js';
import client from 'prom-client';
import { resolve } from '../../core/di/token.js';
import { EngineStatusToken } from '../../core/engine/engine-status.js';
import { RecordReaderToken } from '../../core/engine/record-reader.js';
import { DiscoveryFactsToken } from '../../core/plugin/discovery-facts.js';
import { definePlugin } from '../../core/plugin/plugin.js';
import { Reply } from '../../core/plugin/reply.js';
import { defineRoute } from '../../core/plugin/route.js';
import { token } from '../../core/di/token.js';

export const MetricsRegistryToken = token<client.Registry>('metrics.Registry');

export const getMetrics = defineRoute({
  operationId: 'getMetrics',
  method: 'GET',
  path: '/metrics',
  summary: 'Prometheus metrics',
  description: 'The Prometheus text exposition format (0.0.4): loom_http_* per route, loom_records_* and loom_watchers_open, loom_fold_lag_records, loom_consumer_* per log consumer, and the process_* / nodejs_* defaults. Needs config:read.',
  tags: ['metrics'],
  auth: { scope: 'config:read' },
  responses: { 200: { description: 'Metrics in the Prometheus text format.', contentType: 'text/plain; version=0.0.4' } },
  errors: [],
  inject: { registry: MetricsRegistryToken },
  handler: async (_input, { registry }) => Reply.text(200, await registry.metrics(), registry.contentType),
});

export const metricsPlugin = definePlugin({
  name: 'metrics',
  tags: {
    metrics: 'Prometheus metrics of the server (config:read).',
  },
  version: '1.0.0',
  dependencies: ['ledger'],
  register(scope) {
    const registry = new client.Registry();
    client.collectDefaultMetrics({ register: registry });
    scope.expose(MetricsRegistryToken, registry);
    scope.route(getMetrics);

    const requests = new client.Histogram({
      name: 'loom_http_request_duration_seconds',
      help: 'Time from receiving a request to answering it, by route (operationId), method and status.',
      labelNames: ['route', 'method', 'status'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    });
    const refusals = new client.Counter({ name: 'loom_http_refusals_total', help: 'Refused requests by route and error code.', labelNames: ['route', 'code'], registers: [registry] });
    scope.observeRequests((event) => {
      // Unmatched paths share one label, so scanners cannot grow the label set.
      const route = event.route ?? 'unmatched';
      requests.observe({ route, method: event.method, status: String(event.status) }, event.durationMs / 1000);
      if (event.code) refusals.inc({ route, code: event.code });
    });

    const reader = resolve(scope.container, RecordReaderToken);
    const engine = resolve(scope.container, EngineStatusToken);
    const facts = resolve(scope.container, DiscoveryFactsToken);
    const ingested = new client.Counter({ name: 'loom_records_published_total', help: 'Records published to the engine (stored by this server, or by another on a shared log).', registers: [registry] });
    const batches = new client.Histogram({ name: 'loom_publish_batch_records', help: 'Records per published batch (a group commit, on a log of its own).', buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024], registers: [registry] });
    new client.Gauge({ name: 'loom_log_head_sequence', help: 'Sequence of the last record published (records held, on a log of its own).', registers: [registry], collect() { this.set(reader.position); } });
    if (engine.countThreads) {
      const count = engine.countThreads;
      new client.Gauge({
        name: 'loom_threads',
        help: 'Threads held in the log.',
        registers: [registry],
        async collect() {
          this.set(await count());
        },
      });
    }
    new client.Gauge({
      name: 'loom_watchers_open',
      help: 'Thread-watch (SSE) feeds open.',
      registers: [registry],
      collect() {
        const watchers = (facts.read('health') as { watchers?: { open: number } }).watchers;
        this.set(watchers?.open ?? 0);
      },
    });
    new client.Gauge({
      name: 'loom_fold_lag_records',
      help: 'Records published but not yet applied by the global folds (largest over the folds).',
      registers: [registry],
      collect() {
        this.set(engine.foldLag());
      },
    });
    const consumers = resolve(scope.container, ConsumerRegistryToken);
    const perConsumer = (name: string, help: string, value: (status: ConsumerStatus) => number) =>
      new client.Gauge({
        name,
        help,
        labelNames: ['consumer'],
        registers: [registry],
        collect() {
          this.reset();
          for (const status of consumers.list()) this.set({ consumer: status.name }, value(status));
        },
      });
    perConsumer('loom_consumer_lag_records', 'Records published but not yet handled by the log consumer (head − cursor).', (status) => status.lag);
    perConsumer('loom_consumer_running', 'Whether the log consumer runs on this server (0: stopped, or standing by for the leader lease).', (status) => (status.state === 'stopped' || status.state === 'standby' ? 0 : 1));
    perConsumer('loom_consumer_consecutive_failures', 'Failed attempts in a row of the log consumer (0: its last batch succeeded).', (status) => status.consecutive_failures);
    let unsubscribe: (() => void) | null = null;
    scope.onStart(() => {
      unsubscribe = reader.onPublished((records) => {
        ingested.inc(records.length);
        batches.observe(records.length);
      });
    });
    scope.onStop(() => {
      unsubscribe?.();
      registry.clear();
    });
    scope.capability('metrics.prometheus', true);
  },
});
