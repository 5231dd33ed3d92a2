// The part of autocannon's programmatic API that scripts/bench.ts uses (the package ships no types).
declare module "autocannon" {
  type Histogram = { average: number; stddev: number; min: number; max: number; p50: number; p90: number; p99: number };

  export type Options = {
    url: string;
    connections?: number;
    duration?: number;
    headers?: Record<string, string>;
    timeout?: number;
  };

  export type Result = {
    url: string;
    requests: Histogram & { total: number };
    latency: Histogram;
    throughput: Histogram;
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    statusCodeStats: Record<string, { count: number }>;
  };

  export type Instance = PromiseLike<Result> & {
    stop(): void;
    /** Every response, with its latency in milliseconds. */
    on(event: "response", listener: (client: unknown, statusCode: number, bytes: number, responseTime: number) => void): void;
  };

  function autocannon(options: Options): Instance;
  export default autocannon;
}
