// Background jobs.
import { index, integer, jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { id, createdAt } from "./columns.ts";

export const JOB_STATUSES = ["queued", "running", "done", "failed"] as const;

/**
 * Work for the job runner (server/jobs/runner.ts), shared by every instance: a job is claimed
 * with FOR UPDATE SKIP LOCKED and a lease, so one instance runs it, and another takes it over if
 * that one dies. `key` is unique: enqueuing the same work twice makes one job.
 */
export const jobs = pgTable(
  "jobs",
  {
    id: id(),
    queue: text("queue").notNull(),
    key: text("key").notNull().unique(),
    payload: jsonb("payload").notNull(),
    runAt: timestamp("run_at", { withTimezone: true }).notNull(),
    status: text("status", { enum: JOB_STATUSES }).notNull().default("queued"),
    attempts: integer("attempts").notNull().default(0),
    leaseUntil: timestamp("lease_until", { withTimezone: true }),
    lastError: text("last_error"),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("jobs_due_idx").on(t.status, t.runAt)],
);
