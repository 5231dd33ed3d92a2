// vitest globalSetup of the integration projects: the migrated database and the migrated and seeded
// one are built once per run, and every test file's database starts as a copy of one of them
// (tests/support/database.ts) instead of migrating and seeding from scratch. On PostgreSQL they are
// template databases (`create database … template …`), dropped when the run ends; on PGlite they are
// data folders, closed cleanly, that each test file copies and opens (copying a folder and opening
// it is quicker than loading a `dumpDataDir()` tarball, which is quicker than a new database's initdb).
import { randomBytes } from "node:crypto";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import type { TestProject } from "vitest/node";
import { openDatabase } from "#server/db/client.ts";
import { seedDemoCoupons } from "#server/db/seed/coupons.ts";
import { seedDatabase } from "#server/db/seed/index.ts";
import { testConfig } from "./config.ts";

/** Where a test file finds the templates: PGlite folders, or PostgreSQL databases' names. */
export type DatabaseTemplates =
  | {
      kind: "pglite";
      /** A new database's folder (initdb done), the same migrated, and migrated and seeded. */
      empty: string;
      migrated: string;
      seeded: string;
      /** Where test files put their copies (removed with the templates). */
      folder: string;
    }
  | { kind: "postgres"; migrated: string; seeded: string };

declare module "vitest" {
  export interface ProvidedContext {
    databaseTemplates: DatabaseTemplates;
  }
}

export default async function setup(project: TestProject) {
  const postgres = project.config.env?.TEST_DATABASE === "postgres";
  const { templates, teardown } = postgres ? await postgresTemplates() : await pgliteTemplates();
  project.provide("databaseTemplates", templates);
  return teardown;
}

const FOLDER_PREFIX = "portal-test-databases-";

/** Whether the process still runs (a folder's owner). */
function alive(pid: number) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** The folders of runs that were killed before their teardown (each holds a few times 40 MB). */
function removeAbandonedFolders() {
  for (const name of readdirSync(tmpdir()).filter((n) => n.startsWith(FOLDER_PREFIX))) {
    const folder = path.join(tmpdir(), name);
    let owner: number;
    try {
      owner = Number(readFileSync(path.join(folder, "owner.pid"), "utf8"));
    } catch {
      continue; // being created, or not ours
    }
    if (owner > 0 && !alive(owner)) rmSync(folder, { recursive: true, force: true });
  }
}

async function pgliteTemplates() {
  removeAbandonedFolders();
  const folder = mkdtempSync(path.join(tmpdir(), FOLDER_PREFIX));
  writeFileSync(path.join(folder, "owner.pid"), String(process.pid));
  const empty = path.join(folder, "template-empty");
  const migrated = path.join(folder, "template-migrated");
  const seeded = path.join(folder, "template-seeded");
  await (await openDatabase({ dataDir: empty })).close();
  cpSync(empty, migrated, { recursive: true });
  const first = await openDatabase({ dataDir: migrated });
  await first.migrate(first.db);
  await first.close();
  cpSync(migrated, seeded, { recursive: true });
  const second = await openDatabase({ dataDir: seeded });
  await seedDatabase(second.db, testConfig().links);
  await seedDemoCoupons(second.db);
  await second.close();
  return {
    templates: { kind: "pglite", empty, migrated, seeded, folder } as const,
    teardown: () => rmSync(folder, { recursive: true, force: true }),
  };
}

async function postgresTemplates() {
  const serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) throw new Error("TEST_DATABASE=postgres needs DATABASE_URL");
  const prefix = `portal_template_${randomBytes(4).toString("hex")}`;
  const migrated = `${prefix}_migrated`;
  const seeded = `${prefix}_seeded`;
  const urlOf = (name: string) => Object.assign(new URL(serverUrl), { pathname: `/${name}` }).toString();
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`create database ${migrated}`);
    const first = await openDatabase({ url: urlOf(migrated), poolMax: 1 });
    await first.migrate(first.db);
    await first.close();
    await cloneDatabase(admin, seeded, migrated);
    const second = await openDatabase({ url: urlOf(seeded), poolMax: 1 });
    await seedDatabase(second.db, testConfig().links);
    await seedDemoCoupons(second.db);
    await second.close();
  } finally {
    await admin.end();
  }
  return {
    templates: { kind: "postgres", migrated, seeded } as const,
    async teardown() {
      const cleanup = new pg.Client({ connectionString: serverUrl });
      await cleanup.connect();
      for (const name of [seeded, migrated]) await cleanup.query(`drop database if exists ${name} with (force)`);
      await cleanup.end();
    },
  };
}

/** PostgreSQL's SQLSTATE when the template still has a session (one just closed may linger a moment). */
const OBJECT_IN_USE = "55006";

/** `create database name template template`, waiting for the template's last session to end. */
export async function cloneDatabase(admin: pg.Client, name: string, template: string) {
  for (let attempt = 0; ; attempt++) {
    try {
      await admin.query(`create database ${name} template ${template}`);
      return;
    } catch (error) {
      if ((error as { code?: string }).code !== OBJECT_IN_USE || attempt >= 50) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
