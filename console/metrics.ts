/**
 * A few key series out of GET /metrics (the Prometheus text format, the only
 * form the API gives metrics in): each series summed over its label sets, so
 * the instance view can show a summary without a metrics stack. Unknown
 * series and comments are skipped; a value that is not a number is ignored.
 */
export interface MetricSummary {
  readonly key: string;
  readonly label: string;
  readonly value: number | null;
  readonly unit: 'count' | 'bytes' | 'seconds';
}

const KEY_SERIES: ReadonlyArray<readonly [series: string, label: string, unit: MetricSummary['unit'], how: 'sum' | 'max']> = [
  ['loom_records_published_total', 'Records published', 'count', 'sum'],
  ['loom_log_head_sequence', 'Log head sequence', 'count', 'max'],
  ['loom_threads', 'Threads', 'count', 'sum'],
  ['loom_watchers_open', 'Open thread watches', 'count', 'sum'],
  ['loom_fold_lag_records', 'Fold lag (worst, records)', 'count', 'max'],
  ['loom_http_request_duration_seconds_count', 'HTTP requests served', 'count', 'sum'],
  ['loom_http_refusals_total', 'HTTP refusals', 'count', 'sum'],
  ['process_resident_memory_bytes', 'Resident memory', 'bytes', 'max'],
  ['nodejs_eventloop_lag_p99_seconds', 'Event loop lag p99', 'seconds', 'max'],
];

/** `name{labels} value [timestamp]` → name and value. */
const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{.*\})?\s+(\S+)/;

export function summariseMetrics(text: string): MetricSummary[] {
  const seen = new Map<string, number[]>();
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const match = SAMPLE.exec(line);
    if (!match) continue;
    const value = Number(match[2]);
    if (!Number.isFinite(value)) continue;
    const values = seen.get(match[1]!) ?? [];
    values.push(value);
    seen.set(match[1]!, values);
  }
  return KEY_SERIES.map(([key, label, unit, how]) => {
    const values = seen.get(key);
    const value = !values ? null : how === 'sum' ? values.reduce((sum, v) => sum + v, 0) : Math.max(...values);
    return { key, label, unit, value };
  });
}

export function formatMetric({ value, unit }: MetricSummary): string {
  if (value === null) return 'not reported';
  if (unit === 'bytes') return `${(value / 1_048_576).toFixed(1)} MiB`;
  if (unit === 'seconds') return `${(value * 1000).toFixed(1)} ms`;
  return Math.round(value).toLocaleString('en');
}
