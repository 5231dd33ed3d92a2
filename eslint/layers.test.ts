import path from "node:path";
import { RuleTester } from "eslint";
import tseslint from "typescript-eslint";
import { afterAll, describe, it } from "vitest";
import layers from "./layers.js";

// RuleTester writes its cases with the test framework's functions it is given.
Object.assign(RuleTester, { afterAll, describe, it });

const root = path.resolve(import.meta.dirname, "..");
const file = (relative: string) => path.join(root, relative);
const tester = new RuleTester({ languageOptions: { parser: tseslint.parser } });

tester.run("layers", layers.rules.layers, {
  valid: [
    // Down the layers: commerce → payments → invoices, the library → the catalogue.
    { filename: file("server/commerce/settlement.ts"), code: 'import { x } from "../payments/service.ts";' },
    { filename: file("server/payments/payment-rows.ts"), code: 'import { x } from "../invoices/service.ts";' },
    { filename: file("server/library/dashboard.ts"), code: 'import { x } from "../catalog/products.ts";' },
    // Its own folder, the foundation's folders among themselves, shared/.
    { filename: file("server/payments/service.ts"), code: 'import { x } from "./gateway.ts";' },
    { filename: file("server/db/client.ts"), code: 'import { x } from "../config.ts";' },
    { filename: file("server/payments/service.ts"), code: 'import { x } from "../../shared/links.ts";' },
    // Doors import any layer; so do the demo data and the tests.
    { filename: file("server/api/operations/order.ts"), code: 'import { x } from "../../commerce/order-payments.ts";' },
    { filename: file("server/db/seed/accounts.ts"), code: 'import { x } from "../../accounts/passwords.ts";' },
    { filename: file("server/services.ts"), code: 'import { x } from "./identity/provider.ts";' },
    // Subpath imports are resolved the same way.
    { filename: file("server/commerce/settlement.ts"), code: 'import { x } from "#server/library/entitlements.ts";' },
  ],
  invalid: [
    // Up the layers: payments would know about orders, the library about subscriptions.
    {
      filename: file("server/payments/service.ts"),
      code: 'import { x } from "../commerce/checkout.ts";',
      errors: [{ message: /server\/payments sits below server\/commerce/ }],
    },
    {
      filename: file("server/library/dashboard.ts"),
      code: 'import type { X } from "#server/commerce/subscription-records.ts";',
      errors: [{ message: /server\/library sits below server\/commerce/ }],
    },
    // Side by side in one layer.
    {
      filename: file("server/jobs/runner.ts"),
      code: 'export { x } from "../audit/service.ts";',
      errors: [{ message: /server\/jobs sits beside server\/audit/ }],
    },
    // A door.
    {
      filename: file("server/identity/provider.ts"),
      code: 'const m = import("../http/app.ts");',
      errors: [{ message: /never imports a door \(server\/http\)/ }],
    },
  ],
});
