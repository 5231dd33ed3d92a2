import { describe, expect, it } from "vitest";
import { dashboardSectionsFor, promoAreasFor, suggestionAudienceFor } from "./promo-areas.ts";

describe("promo areas of the dashboard", () => {
  it("follow the profession", () => {
    expect(promoAreasFor("student", false)).toEqual({
      topRight: "dashboard_studenti_top_right",
      left: "dashboard_studenti_left",
      numbered: ["dashboard_studenti_1", "dashboard_studenti_2", "dashboard_studenti_3", "dashboard_studenti_4"],
    });
    expect(promoAreasFor("professor", false).topRight).toBe("dashboard_docenti_top_right");
    expect(promoAreasFor("other", false).left).toBe("dashboard_professionisti_left");
  });

  it("switch top-right and left to the edu variant while EDU is active", () => {
    const areas = promoAreasFor("professor", true);
    expect(areas.topRight).toBe("dashboard_docenti_top_right_edu");
    expect(areas.left).toBe("dashboard_docenti_left_edu");
    expect(areas.numbered[0]).toBe("dashboard_docenti_1");
  });

  it("give an unknown profession the professionals' boxes", () => {
    expect(promoAreasFor("notary", false).topRight).toBe("dashboard_professionisti_top_right");
  });
});

describe("dashboard sections and suggestions by profession", () => {
  it("hide journals for students and courses for professors", () => {
    expect(dashboardSectionsFor("student")).toEqual({ journals: false, courses: true });
    expect(dashboardSectionsFor("professor")).toEqual({ journals: true, courses: false });
    expect(dashboardSectionsFor("other")).toEqual({ journals: true, courses: true });
  });

  it("suggest student books to students and professors, professional books to the others", () => {
    expect(suggestionAudienceFor("student")).toBe("students");
    expect(suggestionAudienceFor("professor")).toBe("students");
    expect(suggestionAudienceFor("other")).toBe("professionals");
  });
});
