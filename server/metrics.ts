// What the portal counts for its operators, in Prometheus's format (docs/operating.md, "Metrics
// and alerts"; `GET /metrics` with METRICS_TOKEN). One registry per process (main.ts makes it),
// handed to the database, the services and the HTTP host: what each instance did is counted by
// that instance, and Prometheus adds the instances up. What a backlog holds now (jobs due, e-invoices
// not yet sent) is read from the database when Prometheus asks, the same for every instance.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from "prom-client";

export type MetricsOptions = {
  /**
   * The process's own figures (event-loop lag, heap, CPU, file descriptors): the server's, not a
   * test's or a command's, which would each start timers of their own.
   */
  process?: boolean;
};

/** A figure read when Prometheus scrapes (a backlog's size, the pool's connections); undefined keeps the last one. */
type Reading = () => number | undefined | Promise<number | undefined>;

export function createMetrics({ process = false }: MetricsOptions = {}) {
  const registry = new Registry();
  if (process) collectDefaultMetrics({ register: registry });
  const counter = <L extends string>(name: string, help: string, labelNames: readonly L[] = []) =>
    new Counter<L>({ name, help, labelNames, registers: [registry] });

  /** Readings that failed at a scrape (the database down): the figures keep their last value, this counts why. */
  const readingErrors = counter("portal_metrics_reading_errors_total", "Backlog figures that could not be read at a scrape", [
    "metric",
  ]);

  return {
    registry,
    http: {
      requests: counter("portal_http_requests_total", "Requests answered, by route pattern, method and status", [
        "route",
        "method",
        "status",
      ]),
      duration: new Histogram({
        name: "portal_http_request_duration_seconds",
        help: "Time from a request's arrival to the end of its answer, by route pattern and method",
        labelNames: ["route", "method"] as const,
        buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
        registers: [registry],
      }),
    },
    db: {
      retries: counter("portal_db_retries_total", "Connections and statements tried again while PostgreSQL was unreachable"),
      outagesWaitedOut: counter(
        "portal_db_outages_waited_out_total",
        "Statements and transactions that met an outage of PostgreSQL and succeeded once it was back",
      ),
    },
    jobs: {
      failures: counter("portal_job_failures_total", "Background jobs that failed a try, by kind", ["kind"]),
    },
    payments: {
      started: counter("portal_payments_started_total", "Card payments started ('Completa l'acquisto', the API)", ["gateway"]),
      succeeded: counter("portal_payments_succeeded_total", "Card payments charged and recorded", ["gateway"]),
      declined: counter("portal_payments_declined_total", "Card charges the bank declined", ["gateway"]),
      refunded: counter("portal_refunds_succeeded_total", "Refunds the gateway completed", ["gateway"]),
    },
    subscriptions: {
      monthsCharged: counter(
        "portal_subscription_months_charged_total",
        "EDU months charged and recorded after the first (which the checkout pays)",
        ["gateway"],
      ),
      monthsFailed: counter(
        "portal_subscription_months_failed_total",
        "Tries of an EDU month's charge the bank declined, by what follows: retry (tried again later), last (the month's last try: the subscription ends), customer (the customer's own try, on the page)",
        ["gateway", "outcome"],
      ),
    },
    invoices: {
      issued: counter("portal_invoices_issued_total", "E-invoices issued (numbered and written), by type: invoice, credit_note", [
        "type",
      ]),
      transmitted: counter(
        "portal_invoice_files_transmitted_total",
        "E-invoice files handed to SDI's transmitter (a corrected file sent again counts again)",
      ),
    },
    mails: {
      queued: counter(
        "portal_mails_queued_total",
        "Mails written to the outbox with the change that owes them, once it committed",
      ),
      failed: counter(
        "portal_mails_failed_total",
        "Mail deliveries that failed (SMTP refused or unreachable): each try, tried again later",
      ),
    },
    signIns: {
      failures: counter("portal_sign_in_failures_total", "Sign-ins refused: a wrong e-mail address or password"),
      lockouts: counter("portal_sign_in_lockouts_total", "Sign-ins refused because the account or address is locked out"),
    },
    rateLimits: {
      refusals: counter("portal_rate_limit_refusals_total", "Requests refused by a rate limit, by limit", ["limit"]),
    },
    /** A figure read at each scrape: a backlog's size in the database, the pool's connections. */
    gauge(name: string, help: string, read: Reading) {
      new Gauge({
        name,
        help,
        registers: [registry],
        async collect() {
          try {
            const value = await read();
            if (value !== undefined) this.set(value);
          } catch {
            readingErrors.inc({ metric: name });
          }
        },
      });
    },
    /** The text Prometheus reads. */
    async exposition(): Promise<{ contentType: string; body: string }> {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
