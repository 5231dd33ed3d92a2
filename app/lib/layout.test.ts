import { describe, expect, it } from "vitest";
import { layoutFor } from "./layout";

describe("layoutFor", () => {
  it.each(["/", "/register/", "/register", "/forgot-password/", "/forgot-password/reset/abc", "/profilo/primoaccesso/"])(
    "gives %s the minimal header",
    (path) => expect(layoutFor(path).header).toBe("minimal"),
  );

  it.each(["/ricevuta/ORD-1", "/ricevuta/ORD-1/PAY-2"])("hides the header on the receipt %s", (path) => {
    expect(layoutFor(path).header).toBe("none");
  });

  it.each(["/attivaprodotto", "/attivaomaggio/", "/attivaebook", "/attivaebookedu/", "/attivadaecomm"])(
    "hides the top strip on the activation route %s",
    (path) => expect(layoutFor(path)).toEqual({ header: "full", showTopStrip: false, dark: false }),
  );

  it("shows the full header with the top strip elsewhere, dark on the dashboard", () => {
    expect(layoutFor("/edu/")).toEqual({ header: "full", showTopStrip: true, dark: false });
    expect(layoutFor("/dashboard/")).toEqual({ header: "full", showTopStrip: true, dark: true });
  });

  it("does not treat look-alike paths as special", () => {
    expect(layoutFor("/registerx").header).toBe("full");
    expect(layoutFor("/attivaprodottox").showTopStrip).toBe(true);
  });
});
