// Reference lists of the profile forms (first access and 'Il mio account'): professions,
// universities, degree courses of a university, subjects and interests. They change rarely, so
// the lists are cached for a minute; validation of a submitted choice reads the database afresh
// (server/accounts/profile.ts), so a cached list can only lag in what is shown.
import { asc, eq } from "drizzle-orm";
import type { Database } from "#server/db/client.ts";
import { degreeCourses, interests, professions, subjects, universities } from "#server/db/schema/index.ts";
import { createTtlCache } from "#server/lib/ttl-cache.ts";
import { isUuid } from "#server/lib/uuid.ts";

/** The professions that shape the profile: each has its own first-access branch (spec §2). */
const PROFESSION_CODES = ["student", "professor", "other"] as const;
export type ProfessionCode = (typeof PROFESSION_CODES)[number];

/** The catch-all interest, never offered at first access (spec §3). */
export const OTHER_INTEREST_CODE = "Altro";

export type ReferenceOption = { id: string; name: string };
export type ProfessionOption = ReferenceOption & { code: string; position: number };
export type InterestOption = ReferenceOption & { code: string };
export type DegreeCourseOption = ReferenceOption & { universityId: string };

const REFERENCE_TTL_MS = 60_000;

export function isProfessionCode(code: string): code is ProfessionCode {
  return (PROFESSION_CODES as readonly string[]).includes(code);
}

/** Italian alphabetical order, the same on PGlite and on any PostgreSQL collation. */
const collator = new Intl.Collator("it", { sensitivity: "base", numeric: true });
const byName = <T extends { name: string }>(a: T, b: T) => collator.compare(a.name, b.name);

export function createReferenceData(
  db: Database,
  { ttlMs = REFERENCE_TTL_MS, now = Date.now }: { ttlMs?: number; now?: () => number } = {},
) {
  const professionList = createTtlCache<ProfessionOption[]>(ttlMs, now);
  const interestList = createTtlCache<InterestOption[]>(ttlMs, now);
  const universityList = createTtlCache<ReferenceOption[]>(ttlMs, now);
  const subjectList = createTtlCache<ReferenceOption[]>(ttlMs, now);
  const courseLists = createTtlCache<ReferenceOption[]>(ttlMs, now);
  const allCourseList = createTtlCache<DegreeCourseOption[]>(ttlMs, now);

  const allProfessions = () =>
    professionList.get("all", async () =>
      db
        .select({ id: professions.id, code: professions.code, name: professions.name, position: professions.position })
        .from(professions)
        .orderBy(asc(professions.position), asc(professions.code)),
    );

  const allInterests = () =>
    interestList.get("all", async () => {
      const rows = await db.select({ id: interests.id, code: interests.code, name: interests.name }).from(interests);
      // Alphabetical, with the catch-all 'Altro' at the end.
      return rows.sort((a, b) => Number(a.code === OTHER_INTEREST_CODE) - Number(b.code === OTHER_INTEREST_CODE) || byName(a, b));
    });

  return {
    /**
     * Professions by position. At first access only those with a completion branch are offered
     * (student, professor and the other legal professional, whose code is `other`).
     */
    async professions({ firstAccess = false }: { firstAccess?: boolean } = {}): Promise<ProfessionOption[]> {
      const list = await allProfessions();
      return firstAccess ? list.filter((p) => isProfessionCode(p.code)) : list;
    },

    /** Interests by name ('Altro' last); at first access without 'Altro'. */
    async interests({ firstAccess = false }: { firstAccess?: boolean } = {}): Promise<InterestOption[]> {
      const list = await allInterests();
      return firstAccess ? list.filter((i) => i.code !== OTHER_INTEREST_CODE) : list;
    },

    /** Universities by name. */
    universities: () =>
      universityList.get("all", async () =>
        (await db.select({ id: universities.id, name: universities.name }).from(universities)).sort(byName),
      ),

    /** The degree courses of one university, by name; none for an unknown or malformed id. */
    async degreeCourses(universityId: string | null | undefined): Promise<ReferenceOption[]> {
      if (!isUuid(universityId)) return [];
      const id = universityId.toLowerCase();
      return courseLists.get(id, async () =>
        (
          await db
            .select({ id: degreeCourses.id, name: degreeCourses.name })
            .from(degreeCourses)
            .where(eq(degreeCourses.universityId, id))
        ).sort(byName),
      );
    },

    /** Every degree course with its university, by name (the account form filters them by university). */
    allDegreeCourses: () =>
      allCourseList.get("all", async () =>
        (
          await db
            .select({ id: degreeCourses.id, name: degreeCourses.name, universityId: degreeCourses.universityId })
            .from(degreeCourses)
        ).sort(byName),
      ),

    /** Subjects by name. */
    subjects: () =>
      subjectList.get("all", async () => (await db.select({ id: subjects.id, name: subjects.name }).from(subjects)).sort(byName)),

    /** Forgets the cached lists (after the reference data was edited). */
    clear() {
      for (const cache of [professionList, interestList, universityList, subjectList, courseLists, allCourseList]) cache.clear();
    },
  };
}

export type ReferenceData = ReturnType<typeof createReferenceData>;
