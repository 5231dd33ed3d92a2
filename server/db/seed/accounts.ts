// Demo accounts for a fresh development install (never seeded in production): a customer who
// can sign in at once, and customers "migrated from the old shop" who must set a password first.
import { eq, inArray } from "drizzle-orm";
import { standardPasswords } from "#server/accounts/passwords.ts";
import type { Database } from "#server/db/client.ts";
import { professions, universities, degreeCourses, users } from "#server/db/schema/index.ts";

export const DEMO_CUSTOMER = { email: "demo@novalex.example", password: "Demo2026!", firstname: "Giulia", lastname: "Verdi" };
const DEMO_MIGRATED = [
  { email: "anna.ferri@novalex.example", firstname: "Anna", lastname: "Ferri" },
  { email: "studio.conti@novalex.example", firstname: "Marco", lastname: "Conti" },
];

/** Inserts the demo accounts that are missing; returns how many were inserted. */
export async function seedDemoAccounts(db: Database): Promise<number> {
  const wanted = [DEMO_CUSTOMER.email, ...DEMO_MIGRATED.map((m) => m.email)];
  const existing = new Set(
    (await db.select({ email: users.email }).from(users).where(inArray(users.email, wanted))).map((r) => r.email),
  );
  const rows: (typeof users.$inferInsert)[] = [];

  if (!existing.has(DEMO_CUSTOMER.email)) {
    // A law student at the first university of the catalogue, on its first degree course.
    const [student] = await db.select({ id: professions.id }).from(professions).where(eq(professions.code, "student"));
    const [course] = await db
      .select({ id: degreeCourses.id, universityId: universities.id })
      .from(degreeCourses)
      .innerJoin(universities, eq(universities.id, degreeCourses.universityId))
      .orderBy(universities.name, degreeCourses.name)
      .limit(1);
    rows.push({
      email: DEMO_CUSTOMER.email,
      passwordHash: await standardPasswords.hash(DEMO_CUSTOMER.password),
      firstname: DEMO_CUSTOMER.firstname,
      lastname: DEMO_CUSTOMER.lastname,
      professionId: student?.id,
      universityId: course?.universityId,
      degreeCourseId: course?.id,
    });
  }
  for (const m of DEMO_MIGRATED) {
    if (!existing.has(m.email)) rows.push({ ...m, migratedFromShop: true });
  }
  if (rows.length === 0) return 0;
  return (await db.insert(users).values(rows).onConflictDoNothing().returning({ id: users.id })).length;
}
