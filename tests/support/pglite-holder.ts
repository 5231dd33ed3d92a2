// A process that holds an embedded database as the server does (server/main.ts: DATA_DIR claimed
// first, PGlite in its worker thread, snapshots served on DATA_DIR's socket) and writes to it
// without pause: `writers` loops, each committing one transaction after another that inserts a
// probe order and then, a statement later, its payment. It prints "ready" once it serves, then
// "committed <id>" after each commit, and at SIGTERM stops writing, closes and prints "stopped".
//   node tests/support/pglite-holder.ts <DATA_DIR> [writers]
import path from "node:path";
import { sql } from "drizzle-orm";
import { openDatabase } from "#server/db/client.ts";
import { holdDataDir } from "#server/db/pglite-owner.ts";

const [dataDir, writerCount = "3"] = process.argv.slice(2);
const hold = await holdDataDir(dataDir!, "portal");
const database = await openDatabase({ dataDir: path.join(dataDir!, "pglite"), ownThread: true });
await database.db.execute(sql`create table if not exists probe_orders (id int primary key, total_cents int not null)`);
await database.db.execute(
  sql`create table if not exists probe_payments (order_id int primary key references probe_orders (id), amount_cents int not null)`,
);
hold.serveSnapshots({ snapshot: database.snapshot! });
console.log("ready");

let next = 0;
let stopping = false;
async function write() {
  while (!stopping) {
    const id = ++next;
    await database.db.transaction(async (tx) => {
      await tx.execute(sql`insert into probe_orders (id, total_cents) values (${id}, ${id * 100})`);
      // Something else in between: a snapshot taken here would hold an order without its payment.
      await tx.execute(sql`select count(*) from probe_orders`);
      await tx.execute(sql`insert into probe_payments (order_id, amount_cents) values (${id}, ${id * 100})`);
    });
    console.log(`committed ${id}`);
  }
}
const writers = Array.from({ length: Number(writerCount) }, () => write());

process.once("SIGTERM", () => {
  stopping = true;
  void Promise.all(writers)
    .then(() => database.close())
    .then(() => hold.close())
    .then(() => console.log("stopped"));
});
