// A payment process that dies (SIGKILL: no cleanup, no finally) at a chosen point of a card
// payment, for tests/integration/payment-crash.test.ts. It works as an instance of the portal
// would, with the sandbox gateway wrapped so that the process kills itself:
//   after-setup    'Completa l'acquisto': the order and its attempt are committed, the card step
//                  exists at the gateway, the database does not know it (args: order, customer);
//   after-create   settling: the charge exists at the gateway, not yet confirmed (arg: the setup);
//   after-confirm  settling: the gateway has charged the card, the database has not recorded it.
// Usage: node tests/support/pay-and-die.ts <database: tests/support/database-location.ts> <point> <id…>
import { openDatabase } from "#server/db/client.ts";
import { databaseAt } from "./database-location.ts";
import { createJobRunner } from "#server/jobs/runner.ts";
import { createLogger } from "#server/logger.ts";
import { createMailService } from "#server/mail/service.ts";
import { createSandboxGateway } from "#server/payments/sandbox-gateway.ts";
import { createOrderPayments } from "#server/commerce/order-payments.ts";
import { createRateLimits } from "#server/security/rate-limits.ts";
import { checkoutDetails } from "./checkout.ts";

const POINTS = ["after-setup", "after-create", "after-confirm"] as const;
const [where, point, ...ids] = process.argv.slice(2);
if (!where || !POINTS.includes(point as never) || ids.length !== (point === "after-setup" ? 2 : 1)) {
  throw new Error("usage: pay-and-die.ts <database> after-setup <order id> <user id> | after-create|after-confirm <setup id>");
}
const database = await openDatabase(databaseAt(where));
const log = createLogger("silent");
const { gateway } = createSandboxGateway(database.db);
const die = () => process.kill(process.pid, "SIGKILL");
/** The gateway's `call`, killing the process once it has answered, if this run's point is `at`. */
const dieAfter =
  <A extends unknown[], R>(at: (typeof POINTS)[number], call: (...args: A) => Promise<R>) =>
  async (...args: A): Promise<R> => {
    const result = await call(...args);
    if (point === at) die();
    return result;
  };
gateway.createSetup = dieAfter("after-setup", gateway.createSetup.bind(gateway));
gateway.createCharge = dieAfter("after-create", gateway.createCharge.bind(gateway));
gateway.confirmCharge = dieAfter("after-confirm", gateway.confirmCharge.bind(gateway));
const runner = createJobRunner({ db: database.db, log });
const payments = createOrderPayments({
  db: database.db,
  gateway,
  rateLimits: createRateLimits(database.db, { clearExpiredByTimeout: false }),
  mail: createMailService({ db: database.db, smtpUrl: undefined, from: "portale@example.it", runner, log }),
  runner,
  publicOrigin: "http://localhost:3000",
  log,
});
if (point === "after-setup") await payments.start(ids[1]!, ids[0]!, checkoutDetails());
else await payments.settleSetup(ids[0]!);
// Reaching this line means the kill point was never reached: the test reads exit code 3.
process.exit(3);
