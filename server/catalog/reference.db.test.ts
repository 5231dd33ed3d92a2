import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "#tests/support/database.ts";
import { degreeCourses, universities } from "#server/db/schema/index.ts";
import { INTERESTS, SUBJECTS, UNIVERSITIES } from "#server/db/seed/reference.ts";
import { isUuid } from "#server/lib/uuid.ts";
import { createReferenceData } from "./reference.ts";

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.destroy());

const italian = new Intl.Collator("it", { sensitivity: "base", numeric: true });
const sortedNames = (names: readonly string[]) => [...names].sort(italian.compare);

describe("reference data of the profile forms", () => {
  it("lists the professions by position; first access offers the three with a branch", async () => {
    const reference = createReferenceData(database.db);
    const all = await reference.professions();
    expect(all.map((p) => p.code)).toEqual(["student", "professor", "other"]);
    expect(all.map((p) => p.position)).toEqual([1, 2, 3]);
    const firstAccess = await reference.professions({ firstAccess: true });
    // 'other' is the legal professional of the interests branch: it must stay selectable.
    expect(firstAccess.map((p) => p.name)).toEqual(["Studente", "Docente", "Professionista"]);
  });

  it("leaves out the interest 'Altro' at first access, and puts it last elsewhere", async () => {
    const reference = createReferenceData(database.db);
    const firstAccess = await reference.interests({ firstAccess: true });
    expect(firstAccess.map((i) => i.code)).not.toContain("Altro");
    expect(firstAccess.map((i) => i.name)).toEqual(sortedNames(INTERESTS.filter((i) => i.code !== "Altro").map((i) => i.name)));
    const all = await reference.interests();
    expect(all).toHaveLength(INTERESTS.length);
    expect(all.at(-1)?.code).toBe("Altro");
  });

  it("sorts universities and subjects by name", async () => {
    const reference = createReferenceData(database.db);
    expect((await reference.universities()).map((u) => u.name)).toEqual(sortedNames(UNIVERSITIES.map((u) => u.name)));
    expect((await reference.subjects()).map((s) => s.name)).toEqual(sortedNames(SUBJECTS.map((s) => s.name)));
  });

  it("gives the degree courses of one university only, sorted; none for an unknown or malformed id", async () => {
    const reference = createReferenceData(database.db);
    const list = await reference.universities();
    const bologna = list.find((u) => u.name.includes("Bologna"))!;
    const seeded = UNIVERSITIES.find((u) => u.name.includes("Bologna"))!.degreeCourses;
    const courses = await reference.degreeCourses(bologna.id);
    expect(courses.map((c) => c.name)).toEqual(sortedNames(seeded));
    expect(await reference.degreeCourses(bologna.id.toUpperCase())).toEqual(courses);

    expect(await reference.degreeCourses("00000000-0000-4000-8000-000000000000")).toEqual([]);
    expect(await reference.degreeCourses("'; drop table users; --")).toEqual([]);
    expect(await reference.degreeCourses(null)).toEqual([]);

    const all = await reference.allDegreeCourses();
    expect(all.filter((c) => c.universityId === bologna.id).map((c) => c.name)).toEqual(courses.map((c) => c.name));
    expect(all).toHaveLength(UNIVERSITIES.reduce((n, u) => n + u.degreeCourses.length, 0));
  });

  it("caches the lists until they expire or are cleared", async () => {
    let clock = 0;
    const reference = createReferenceData(database.db, { ttlMs: 1000, now: () => clock });
    const before = await reference.universities();
    const [added] = await database.db
      .insert(universities)
      .values({ name: "Università degli Studi di Test", city: "Test" })
      .returning({ id: universities.id });
    await database.db.insert(degreeCourses).values({ name: "Giurisprudenza (LMG/01)", universityId: added!.id });
    expect(await reference.universities()).toEqual(before);
    clock = 1001;
    expect((await reference.universities()).map((u) => u.id)).toContain(added!.id);
    expect((await reference.degreeCourses(added!.id)).map((c) => c.name)).toEqual(["Giurisprudenza (LMG/01)"]);
  });

  it("recognises uuids", () => {
    expect(isUuid("3f1c2a9e-8b7d-4c6e-9f00-1a2b3c4d5e6f")).toBe(true);
    expect(isUuid("3F1C2A9E-8B7D-4C6E-9F00-1A2B3C4D5E6F")).toBe(true);
    expect(isUuid("3f1c2a9e8b7d4c6e9f001a2b3c4d5e6f")).toBe(false);
    expect(isUuid(42)).toBe(false);
  });
});
