// Squawk with the project's .squawk.toml, as `npm run lint` runs it on server/db/migrations: it
// refuses a migration that would lock a table the serving instances use (docs/operating.md,
// "Upgrading") and lets the safe forms through. The binary is the one scripts/squawk.ts runs.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { squawkBinary } from "#scripts/squawk.ts";

const CONFIG = new URL("../../.squawk.toml", import.meta.url).pathname;
const dir = mkdtempSync(path.join(tmpdir(), "squawk-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Squawk's verdict on one migration: its exit code and the rules it named. */
function lint(name: string, sql: string) {
  const file = path.join(dir, `${name}.sql`);
  writeFileSync(file, sql);
  const run = spawnSync(binary!, ["--config", CONFIG, "--reporter", "gcc", file], { encoding: "utf8" });
  if (run.error) throw run.error;
  const rules = [...run.stdout.matchAll(/warning: ([a-z-]+) /g)].map((match) => match[1]);
  return { status: run.status, rules: [...new Set(rules)].sort() };
}

const LOCK_TIMEOUT = "SET LOCAL lock_timeout = '5s';\n--> statement-breakpoint\n";

// npm installs squawk's binary for linux-x64 only (scripts/squawk.ts says why): elsewhere, as in
// `npm run lint`, the migrations are not linted; CI (linux-x64) runs these.
const binary = squawkBinary();
describe.skipIf(!binary)("squawk on a migration", () => {
  it.each([
    [
      "an index built without CONCURRENTLY",
      `CREATE INDEX "orders_note_idx" ON "orders" ("note");`,
      "require-concurrent-index-creation",
    ],
    ["a NOT NULL column without a default", `ALTER TABLE "orders" ADD COLUMN "note" text NOT NULL;`, "adding-required-field"],
    ["a column dropped", `ALTER TABLE "payments" DROP COLUMN "refund_ref";`, "ban-drop-column"],
    ["a column renamed", `ALTER TABLE "orders" RENAME COLUMN "note" TO "remark";`, "renaming-column"],
    [
      "a foreign key validated as it is added",
      `ALTER TABLE "orders" ADD CONSTRAINT "orders_user_fk" FOREIGN KEY ("user_id") REFERENCES "users" ("id");`,
      "adding-foreign-key-constraint",
    ],
    [
      "a unique constraint that builds its index",
      `ALTER TABLE "orders" ADD CONSTRAINT "orders_ref_unique" UNIQUE ("ref");`,
      "disallowed-unique-constraint",
    ],
  ])("fails on %s", (_, statement, rule) => {
    const verdict = lint(rule, LOCK_TIMEOUT + statement);
    expect(verdict.status).toBe(1);
    expect(verdict.rules).toContain(rule);
  });

  it("fails on a lock taken with no lock_timeout: the serving instances' queries would queue behind its wait", () => {
    expect(lint("no-lock-timeout", `ALTER TABLE "orders" ADD COLUMN "note" text;`)).toEqual({
      status: 1,
      rules: ["require-lock-timeout"],
    });
  });

  it("passes the safe forms, and an exception written down where it is made", () => {
    const verdict = lint(
      "safe",
      LOCK_TIMEOUT +
        [
          `ALTER TABLE "orders" ADD COLUMN "note" text;`,
          `ALTER TABLE "orders" ADD COLUMN "flagged" boolean DEFAULT false NOT NULL;`,
          `CREATE TABLE "notes" ("id" uuid PRIMARY KEY, "order_id" uuid NOT NULL);`,
          `CREATE INDEX "notes_order_idx" ON "notes" ("order_id");`,
          `ALTER TABLE "notes" ADD CONSTRAINT "notes_order_fk" FOREIGN KEY ("order_id") REFERENCES "orders" ("id") NOT VALID;`,
          `-- Built CONCURRENTLY before npm run db:migrate (docs/operating.md, "Upgrading"): a no-op here.\n` +
            `-- squawk-ignore require-concurrent-index-creation\n` +
            `CREATE INDEX IF NOT EXISTS "orders_note_idx" ON "orders" ("note");`,
        ].join("\n--> statement-breakpoint\n"),
    );
    expect(verdict).toEqual({ status: 0, rules: [] });
  });
});
