// Which promo boxes a customer's dashboard shows: the area codes follow the profession, and the
// top-right and left boxes switch to their 'edu' variant while EDU is active (spec §6).

const PREFIX_BY_PROFESSION: Record<string, string> = {
  student: "dashboard_studenti",
  professor: "dashboard_docenti",
  other: "dashboard_professionisti",
};

export type PromoAreas = { topRight: string; left: string; numbered: [string, string, string, string] };

export function promoAreasFor(professionCode: string, eduActive: boolean): PromoAreas {
  // Professions outside the three of the spec see the legal professionals' boxes.
  const prefix = PREFIX_BY_PROFESSION[professionCode] ?? PREFIX_BY_PROFESSION.other!;
  const edu = eduActive ? "_edu" : "";
  return {
    topRight: `${prefix}_top_right${edu}`,
    left: `${prefix}_left${edu}`,
    numbered: [`${prefix}_1`, `${prefix}_2`, `${prefix}_3`, `${prefix}_4`],
  };
}

/** Students do not see journals; professors do not see courses (spec §2, §6). */
export function dashboardSectionsFor(professionCode: string) {
  return { journals: professionCode !== "student", courses: professionCode !== "professor" };
}

/** Book suggestions: student=1 for students and professors, legal_professions=1 for the others. */
export function suggestionAudienceFor(professionCode: string): "students" | "professionals" {
  return professionCode === "student" || professionCode === "professor" ? "students" : "professionals";
}
