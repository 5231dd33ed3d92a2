// A payment process that dies (SIGKILL: no cleanup, no finally) at a chosen point of a card
// charge, for tests/integration/payment-crash.test.ts. It settles one attempt as an instance of
// the portal would, with the sandbox gateway wrapped so that the process kills itself:
//   after-create   the charge exists at the gateway, not yet confirmed;
//   after-confirm  the gateway has charged the card, the database has not recorded it.
// Usage: node tests/support/settle-and-die.ts <database url or PGlite dir> <setup id> <point>
import { openDatabase } from "../../server/db/client.ts";
import { createJobRunner } from "../../server/jobs/runner.ts";
import { createLogger } from "../../server/logger.ts";
import { createMailService } from "../../server/mail/service.ts";
import { createSandboxGateway } from "../../server/payments/sandbox-gateway.ts";
import { createPayments } from "../../server/payments/service.ts";
import { createRateLimits } from "../../server/security/rate-limits.ts";

const [where, setupId, point] = process.argv.slice(2);
if (!where || !setupId || (point !== "after-create" && point !== "after-confirm")) {
  throw new Error("usage: settle-and-die.ts <database> <setup id> <after-create|after-confirm>");
}
const database = await openDatabase(where.startsWith("postgres") ? { url: where } : { dataDir: where });
const log = createLogger("silent");
const { gateway } = createSandboxGateway(database.db);
const die = () => process.kill(process.pid, "SIGKILL");
const createCharge = gateway.createCharge.bind(gateway);
const confirmCharge = gateway.confirmCharge.bind(gateway);
gateway.createCharge = async (input) => {
  const created = await createCharge(input);
  if (point === "after-create") die();
  return created;
};
gateway.confirmCharge = async (id, input) => {
  const charge = await confirmCharge(id, input);
  if (point === "after-confirm") die();
  return charge;
};
const payments = createPayments({
  db: database.db,
  gateway,
  rateLimits: createRateLimits(database.db, { clearExpiredByTimeout: false }),
  mail: createMailService({ db: database.db, smtpUrl: undefined, from: "portale@example.it", log }),
  runner: createJobRunner({ db: database.db, log }),
  publicOrigin: "http://localhost:3000",
  log,
});
await payments.settleSetup(setupId);
// Reaching this line means the kill point was never reached: the test reads exit code 3.
process.exit(3);
