// An instance of the portal that dies (SIGKILL: no cleanup, no finally) in the middle of a
// subscription month's off-session charge, for tests/integration/subscription-crash.test.ts. It
// runs the job runner's tick as an instance would, at the instant given (parent and child agree on
// the time: the code under test takes all of it from the injected clock), with the sandbox gateway
// wrapped so that the process kills itself:
//   after-create   the month's charge exists at the gateway, not yet confirmed;
//   after-confirm  the gateway has charged the card, the database has not recorded it.
// Usage: node tests/support/charge-month-and-die.ts <database: tests/support/database-location.ts> <ISO instant> <point>
import { openDatabase } from "#server/db/client.ts";
import { databaseAt } from "./database-location.ts";
import type { PaymentGateway } from "#server/payments/gateway.ts";
import { subscriptionInstance } from "./subscriptions.ts";

const [where, instant, point] = process.argv.slice(2);
const clock = new Date(instant ?? "");
if (!where || Number.isNaN(clock.getTime()) || (point !== "after-create" && point !== "after-confirm")) {
  throw new Error("usage: charge-month-and-die.ts <database> <ISO instant> <after-create|after-confirm>");
}
const database = await openDatabase(databaseAt(where));
const die = () => process.kill(process.pid, "SIGKILL");
const instance = subscriptionInstance(
  database.db,
  () => clock,
  (gateway): PaymentGateway => ({
    ...gateway,
    async createCharge(input) {
      const created = await gateway.createCharge(input);
      if (point === "after-create") die();
      return created;
    },
    async confirmCharge(id, input) {
      const charge = await gateway.confirmCharge(id, input);
      if (point === "after-confirm") die();
      return charge;
    },
  }),
);
await instance.jobs.runDue();
// Reaching this line means the kill point was never reached: the test reads exit code 3.
process.exit(3);
