// Reference data of the first-access profile: professions, interests, universities with their
// law degree courses, and subjects (the nine EDU subjects first).

export const PROFESSIONS: ReadonlyArray<{ code: string; name: string; position: number }> = [
  { code: "student", name: "Studente", position: 1 },
  { code: "professor", name: "Docente", position: 2 },
  { code: "other", name: "Professionista", position: 3 },
];

/** Practice areas of legal professionals. 'Altro' is excluded at first access. */
export const INTERESTS: ReadonlyArray<{ code: string; name: string }> = [
  { code: "civile", name: "Diritto civile" },
  { code: "penale", name: "Diritto penale" },
  { code: "processuale", name: "Diritto processuale civile" },
  { code: "lavoro", name: "Diritto del lavoro e previdenza" },
  { code: "tributario", name: "Diritto tributario" },
  { code: "amministrativo", name: "Diritto amministrativo e appalti" },
  { code: "societario", name: "Diritto societario e crisi d'impresa" },
  { code: "famiglia", name: "Famiglia e successioni" },
  { code: "ue", name: "Diritto dell'Unione europea" },
  { code: "privacy", name: "Privacy e diritto digitale" },
  { code: "ambiente", name: "Diritto dell'ambiente" },
  { code: "Altro", name: "Altro" },
];

/** The EDU subjects, in the order of the EDU page. */
export const EDU_SUBJECTS: ReadonlyArray<{ code: string; name: string }> = [
  { code: "pubblico", name: "Diritto pubblico" },
  { code: "costituzionale", name: "Diritto costituzionale" },
  { code: "privato", name: "Diritto privato" },
  { code: "penale", name: "Diritto penale" },
  { code: "lavoro", name: "Diritto del lavoro" },
  { code: "amministrativo", name: "Diritto amministrativo" },
  { code: "ue", name: "Diritto dell'Unione europea" },
  { code: "commerciale", name: "Diritto commerciale" },
  { code: "tributario", name: "Diritto tributario" },
];

/** The eight subjects of the EDU landing carousel. */
export const EDU_CAROUSEL_SUBJECTS = EDU_SUBJECTS.slice(0, 8);

export const SUBJECTS: ReadonlyArray<{ code: string; name: string }> = [
  ...EDU_SUBJECTS,
  { code: "processuale-civile", name: "Diritto processuale civile" },
  { code: "processuale-penale", name: "Diritto processuale penale" },
  { code: "internazionale", name: "Diritto internazionale" },
  { code: "privato-comparato", name: "Diritto privato comparato" },
  { code: "istituzioni-romano", name: "Istituzioni di diritto romano" },
  { code: "storia-romano", name: "Storia del diritto romano" },
  { code: "storia-medievale", name: "Storia del diritto medievale e moderno" },
  { code: "filosofia", name: "Filosofia del diritto" },
  { code: "ecclesiastico", name: "Diritto ecclesiastico" },
  { code: "informatica-giuridica", name: "Informatica giuridica" },
  { code: "economia-politica", name: "Economia politica" },
];

// ---------------------------------------------------------------- universities

/** Degree courses by short key. */
const COURSE = {
  G: "Giurisprudenza (LMG/01)",
  SSG: "Scienze dei servizi giuridici (L-14)",
  CLG: "Consulente del lavoro e giurista d'impresa (L-14)",
  NT: "Diritto per le nuove tecnologie (L-14)",
  GI: "Giurista d'impresa e delle amministrazioni pubbliche (L-14)",
  OG: "Operatore giuridico d'impresa (L-14)",
  GIE: "Giurisprudenza - percorso europeo e internazionale (LMG/01)",
  SG: "Scienze giuridiche della sicurezza (L-14)",
} as const;

type CourseKey = keyof typeof COURSE;

const UNIVERSITY_ROWS: ReadonlyArray<readonly [name: string, city: string, courses: readonly CourseKey[]]> = [
  ["Università degli Studi di Milano", "Milano", ["G", "SSG", "NT"]],
  ["Sapienza Università di Roma", "Roma", ["G", "SSG", "GIE"]],
  ["Alma Mater Studiorum - Università di Bologna", "Bologna", ["G", "CLG", "GIE", "NT"]],
  ["Università degli Studi di Napoli Federico II", "Napoli", ["G", "SSG", "SG"]],
  ["Università degli Studi di Padova", "Padova", ["G", "CLG"]],
  ["Università degli Studi di Torino", "Torino", ["G", "SSG", "NT"]],
  ["Università degli Studi di Firenze", "Firenze", ["G", "SSG"]],
  ["Università di Pisa", "Pisa", ["G", "GI", "NT"]],
  ['Università degli Studi di Roma "Tor Vergata"', "Roma", ["G", "OG"]],
  ["Università degli Studi Roma Tre", "Roma", ["G", "SSG", "GIE"]],
  ["Università Cattolica del Sacro Cuore", "Milano", ["G", "CLG", "GIE"]],
  ["Università Commerciale Luigi Bocconi", "Milano", ["G", "GIE"]],
  ["LUISS Guido Carli", "Roma", ["G", "GIE", "NT"]],
  ["Università degli Studi di Milano-Bicocca", "Milano", ["G", "SSG", "OG"]],
  ["Università degli Studi di Genova", "Genova", ["G", "SSG"]],
  ["Università degli Studi di Palermo", "Palermo", ["G", "CLG", "SSG"]],
  ["Università degli Studi di Bari Aldo Moro", "Bari", ["G", "CLG", "GI"]],
  ["Università degli Studi di Catania", "Catania", ["G", "SSG"]],
  ["Università degli Studi di Trento", "Trento", ["G", "GIE", "NT"]],
  ["Università degli Studi di Pavia", "Pavia", ["G", "SSG"]],
  ["Università degli Studi di Verona", "Verona", ["G", "GI"]],
  ["Università degli Studi di Siena", "Siena", ["G", "SSG", "SG"]],
  ["Università degli Studi di Cagliari", "Cagliari", ["G", "CLG"]],
  ["Università degli Studi di Perugia", "Perugia", ["G", "SSG", "OG"]],
];

export const UNIVERSITIES: ReadonlyArray<{ name: string; city: string; degreeCourses: readonly string[] }> = UNIVERSITY_ROWS.map(
  ([name, city, courses]) => ({ name, city, degreeCourses: courses.map((c) => COURSE[c]) }),
);
