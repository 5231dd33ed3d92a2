// The job runner: background work on PostgreSQL, shared by every instance of the portal
// (docs/features.md, "Background jobs"). Two kinds of work:
//   queues — rows of the `jobs` table, each with a unique key (enqueuing the same work twice
//            makes one job) and the time it may run from. A job is claimed with FOR UPDATE SKIP
//            LOCKED and a lease: one instance runs it; if that instance dies, the lease runs out
//            and another takes it over. A handler that throws is tried again later.
//   sweeps — work whose rows live in a table of their own (the subscription's months): each
//            sweep claims its rows the same way and says how many it handled.
// A tick runs every sweep, then every due job, until nothing due is left, so an instance that
// was down catches up at its next tick. All time comes from the injected clock, never from the
// database's now(): tests move the clock, and so can a developer (docs/features.md,
// "Moving the clock").
//
// The runner de-duplicates by key, but it is not what makes work happen once: whatever a job
// or a sweep changes must be safe to run twice (a charge has its own claim and idempotency keys).
import { and, asc, eq, inArray, lte, or, sql } from "drizzle-orm";
import type { Database, Queryable } from "#server/db/client.ts";
import { jobs } from "#server/db/schema/index.ts";
import { systemClock, type Clock } from "#server/lib/clock.ts";
import { forEachConcurrently } from "#server/lib/concurrently.ts";
import type { Logger } from "#server/logger.ts";
import type { Metrics } from "#server/metrics.ts";

/** How long a claimed job belongs to the instance that claimed it. */
const JOB_LEASE_MS = 5 * 60_000;
/** Jobs claimed at once by an instance. */
const BATCH_SIZE = 20;
/** Jobs an instance runs at once (a mail mostly waits for the mail server). */
const JOBS_AT_ONCE = 4;
/** A job that keeps failing is given up after this many tries (and logged as an error). */
const MAX_ATTEMPTS = 8;
/** A failed job waits 1, 2, 4 … minutes, at most an hour, before its next try. */
const retryDelayMs = (attempts: number) => Math.min(60_000 * 2 ** (attempts - 1), 3_600_000);

export type NewJob = {
  queue: string;
  /** Unique: the same key enqueued again is the same job. */
  key: string;
  payload: Record<string, unknown>;
  runAt: Date;
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each queue's handler knows its own payload
type Handler = (payload: any) => Promise<void>;
/** Claims and handles up to `limit` rows due at `now`; returns how many it handled. */
type Sweep = (now: Date, limit: number) => Promise<number>;

export type JobRunnerOptions = {
  db: Database;
  log: Logger;
  now?: Clock;
  /** Where failed tries are counted, by queue (server/metrics.ts). */
  metrics?: Metrics;
};

/** Adds a job in the caller's transaction (so it exists exactly when the change that needs it commits). */
export async function enqueueJob(db: Queryable, job: NewJob, at: Date): Promise<void> {
  await db
    .insert(jobs)
    .values({ ...job, createdAt: at, updatedAt: at })
    .onConflictDoNothing({ target: jobs.key });
}

/**
 * Queues a job to run (again) from `at`, its tries counted anew: made when there is none, run
 * again when it is done or was given up (an operator's 'send again'). A job queued or running is
 * left as it is: the answer says which, so the caller knows whether it will see the change.
 */
export async function requeueJob(db: Queryable, job: NewJob, at: Date): Promise<"queued" | "running"> {
  const [requeued] = await db
    .insert(jobs)
    .values({ ...job, createdAt: at, updatedAt: at })
    .onConflictDoUpdate({
      target: jobs.key,
      set: { status: "queued", attempts: 0, runAt: job.runAt, leaseUntil: null, lastError: null, updatedAt: at },
      setWhere: inArray(jobs.status, ["done", "failed"]),
    })
    .returning({ id: jobs.id });
  if (requeued) return "queued";
  const [current] = await db.select({ status: jobs.status }).from(jobs).where(eq(jobs.key, job.key));
  return current?.status === "running" ? "running" : "queued";
}

/** A job's columns once an instance claims it at `at`: running, one try more, under a lease. */
const claimedAt = (at: Date) => ({
  status: "running" as const,
  attempts: sql`${jobs.attempts} + 1`,
  leaseUntil: new Date(at.getTime() + JOB_LEASE_MS),
  updatedAt: at,
});

export function createJobRunner({ db, log, now = systemClock, metrics }: JobRunnerOptions) {
  const handlers = new Map<string, Handler>();
  const sweeps = new Map<string, Sweep>();
  let timer: ReturnType<typeof setInterval> | undefined;
  /** The runs of this instance, one after the other. */
  let queue: Promise<unknown> = Promise.resolve();
  let busy = false;
  /**
   * Set when the instance stops: a run ends with the jobs and the sweep under way, not with the
   * whole backlog. The jobs it claimed and had not begun go back to the queue for another instance.
   */
  let stopRequested = false;

  async function claimJobs(at: Date) {
    // Only the queues this instance has a handler for: during an upgrade an instance of the
    // previous release must leave a new queue's jobs to the instances that know it, rather than
    // spend their tries on 'no handler' (an e-invoice transmission lost 4 of its 8 so).
    const known = [...handlers.keys()];
    if (known.length === 0) return [];
    const due = db
      .select({ id: jobs.id })
      .from(jobs)
      .where(
        and(
          inArray(jobs.queue, known),
          or(and(eq(jobs.status, "queued"), lte(jobs.runAt, at)), and(eq(jobs.status, "running"), lte(jobs.leaseUntil, at))),
        ),
      )
      .orderBy(asc(jobs.runAt))
      .limit(BATCH_SIZE)
      .for("update", { skipLocked: true });
    return db.update(jobs).set(claimedAt(at)).where(inArray(jobs.id, due)).returning();
  }

  /** Claimed jobs this instance will not run (it is stopping): queued again, their try not counted. */
  async function handBack(unstarted: (typeof jobs.$inferSelect)[]) {
    if (unstarted.length === 0) return;
    await db
      .update(jobs)
      .set({ status: "queued", attempts: sql`${jobs.attempts} - 1`, leaseUntil: null, updatedAt: now() })
      .where(
        and(
          inArray(
            jobs.id,
            unstarted.map((job) => job.id),
          ),
          eq(jobs.status, "running"),
        ),
      );
  }

  async function runJob(job: typeof jobs.$inferSelect) {
    const handler = handlers.get(job.queue);
    try {
      if (!handler) throw new Error(`No handler for the queue ${job.queue}`);
      await handler(job.payload);
      await db
        .update(jobs)
        .set({ status: "done", leaseUntil: null, lastError: null, updatedAt: now() })
        .where(and(eq(jobs.id, job.id), eq(jobs.status, "running")));
      return true;
    } catch (err) {
      metrics?.jobs.failures.inc({ kind: job.queue });
      const giveUp = job.attempts >= MAX_ATTEMPTS;
      const at = now();
      const context = { err, job: { id: job.id, queue: job.queue, attempts: job.attempts } };
      if (giveUp) log.error(context, "a job failed for the last time");
      else log.warn(context, "a job failed; it will be tried again");
      await db
        .update(jobs)
        .set({
          status: giveUp ? "failed" : "queued",
          runAt: giveUp ? job.runAt : new Date(at.getTime() + retryDelayMs(job.attempts)),
          leaseUntil: null,
          lastError: err instanceof Error ? err.message : String(err),
          updatedAt: at,
        })
        .where(and(eq(jobs.id, job.id), eq(jobs.status, "running")));
      return false;
    }
  }

  /** Everything due now: sweeps first (they may enqueue jobs), then the jobs, until none is left. */
  async function runAll(): Promise<Record<string, number>> {
    const done: Record<string, number> = {};
    for (;;) {
      let handled = 0;
      for (const [name, sweep] of sweeps) {
        if (stopRequested) return done;
        const n = await sweep(now(), BATCH_SIZE);
        done[name] = (done[name] ?? 0) + n;
        handled += n;
      }
      if (stopRequested) return done;
      const claimed = await claimJobs(now());
      const unstarted = new Set(claimed);
      try {
        await forEachConcurrently(claimed, JOBS_AT_ONCE, async (job) => {
          if (stopRequested) return;
          unstarted.delete(job);
          if (await runJob(job)) done[job.queue] = (done[job.queue] ?? 0) + 1;
        });
      } finally {
        await handBack([...unstarted]);
      }
      handled += claimed.length;
      if (handled === 0) return done;
    }
  }

  return {
    /** The handler of a queue's jobs: it must be safe to run again for the same job. */
    handle(queue: string, handler: Handler) {
      handlers.set(queue, handler);
    },
    /** Work claimed from its own table, run at every tick. */
    sweep(name: string, sweep: Sweep) {
      sweeps.set(name, sweep);
    },
    enqueue: (db: Queryable, job: NewJob) => enqueueJob(db, job, now()),
    /**
     * Runs what is due now, until nothing is left (an operator's 'run now', a test's tick).
     * Calls on one instance run one after the other.
     */
    runDue(): Promise<Record<string, number>> {
      const run = queue.then(runAll);
      queue = run.catch(() => undefined);
      return run;
    },
    /**
     * Runs the queued job `key` here and now (its change has just committed and a customer waits
     * for what it does), claimed as a tick claims it: it runs once, here or at a tick. A failure
     * is logged and left to the job's next try, as at a tick.
     */
    async runNow(key: string): Promise<void> {
      if (stopRequested) return;
      const at = now();
      const [job] = await db
        .update(jobs)
        .set(claimedAt(at))
        .where(and(eq(jobs.key, key), eq(jobs.status, "queued"), inArray(jobs.queue, [...handlers.keys()])))
        .returning();
      if (job) await runJob(job);
    },
    /**
     * Ticks at once, then every `intervalMs` (every instance does; the claims share the work out).
     * At once: an instance started again (a deploy, a restart) catches up without waiting a tick.
     */
    start(intervalMs: number) {
      const tick = () => {
        if (busy) return;
        busy = true;
        this.runDue()
          .catch((err: unknown) => log.error({ err }, "the job runner's tick failed"))
          .finally(() => (busy = false));
      };
      timer = setInterval(tick, intervalMs);
      timer.unref();
      tick();
    },
    /**
     * Stops ticking; a run under way ends with the jobs it has begun (graceful shutdown). Called
     * when the stop begins, so the jobs finish while the HTTP server drains; leases cover the rest.
     */
    requestStop() {
      stopRequested = true;
      clearInterval(timer);
    },
    /** Stops ticking and waits for the jobs under way (graceful shutdown). */
    async stop() {
      this.requestStop();
      await queue;
    },
  };
}

export type JobRunner = ReturnType<typeof createJobRunner>;
