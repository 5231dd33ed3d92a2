// Ids of the demo seed's reference rows that profile tests choose from.
import type { Database } from "#server/db/client.ts";
import { degreeCourses, interests, professions, subjects, universities } from "#server/db/schema/index.ts";

export type ReferenceIds = Awaited<ReturnType<typeof seededReferenceIds>>;

export async function seededReferenceIds(db: Database) {
  const prof = new Map((await db.select().from(professions)).map((p) => [p.code, p.id]));
  const unis = await db.select().from(universities);
  const milano = unis.find((u) => u.name === "Università degli Studi di Milano")!.id;
  const bologna = unis.find((u) => u.name.includes("Bologna"))!.id;
  const courses = await db.select().from(degreeCourses);
  const milanoCourses = courses.filter((c) => c.universityId === milano);
  const subs = await db.select().from(subjects);
  const ints = await db.select().from(interests);
  return {
    student: prof.get("student")!,
    professor: prof.get("professor")!,
    other: prof.get("other")!,
    milano,
    bologna,
    milanoCourse: milanoCourses[0]!.id,
    milanoCourse2: milanoCourses[1]!.id,
    bolognaCourse: courses.find((c) => c.universityId === bologna)!.id,
    subject: subs[0]!.id,
    subject2: subs[1]!.id,
    interestA: ints.find((i) => i.code === "civile")!.id,
    interestB: ints.find((i) => i.code === "penale")!.id,
    altro: ints.find((i) => i.code === "Altro")!.id,
  };
}
