/** The slice of autocannon 9's programmatic API the HTTP benchmark uses (the package ships no types). */
declare module 'autocannon' {
  export interface Histogram {
    readonly average: number;
    readonly mean: number;
    readonly stddev: number;
    readonly min: number;
    readonly max: number;
    readonly total: number;
    readonly p2_5: number;
    readonly p50: number;
    readonly p90: number;
    readonly p97_5: number;
    readonly p99: number;
    readonly p99_9: number;
  }

  export interface RequestSpec {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
    /** Called before every request; returns the request to send. */
    setupRequest?: (request: RequestSpec, context: Record<string, unknown>) => RequestSpec | null | undefined;
  }

  export interface Options {
    url: string;
    connections?: number;
    /** Seconds. */
    duration?: number;
    amount?: number;
    /** Seconds. */
    timeout?: number;
    pipelining?: number;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    requests?: RequestSpec[];
    title?: string;
  }

  export interface Result {
    readonly title?: string;
    readonly url: string;
    readonly requests: Histogram;
    readonly latency: Histogram;
    readonly throughput: Histogram;
    /** Seconds. */
    readonly duration: number;
    readonly errors: number;
    readonly timeouts: number;
    readonly mismatches: number;
    readonly non2xx: number;
    readonly resets: number;
    readonly '1xx': number;
    readonly '2xx': number;
    readonly '3xx': number;
    readonly '4xx': number;
    readonly '5xx': number;
    readonly statusCodeStats: Record<string, { count: number }>;
    readonly connections: number;
  }

  export interface Instance extends PromiseLike<Result> {
    stop(): void;
  }

  function autocannon(options: Options): Instance;
  export default autocannon;
}
