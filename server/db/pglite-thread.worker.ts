// The thread PGlite runs in when the server uses it (pglite-thread.ts). It opens the database in
// `workerData.dataDir`, says "ready" (or why not), then answers each message of Postgres's
// protocol with Postgres's whole answer, in the order they came: one exchange at a time, as
// PGlite itself works. Everything above the bytes (statements, transactions, values) is the
// server thread's. A snapshot (a backup: pglite-owner.ts) is a checkpoint, then PGlite's own
// dumpDataDir(), between two exchanges: messages that come meanwhile wait for it, in order.
import { parentPort, workerData } from "node:worker_threads";
import { PGlite } from "@electric-sql/pglite";
import { exchange } from "./pglite-protocol.ts";
import { takeSnapshot } from "./pglite-snapshot.ts";

/** What the server thread sends: protocol bytes to run, a snapshot to take, or the order to close. */
export type ToWorker = { message: Uint8Array } | { snapshot: true } | { close: true };
/** What comes back: one of these per message, in order. */
export type FromWorker = { ready: true } | { failed: string } | { answer: Uint8Array } | { error: string } | { closed: true };

const port = parentPort!;
const post = (reply: FromWorker, transfer: ArrayBuffer[] = []) => port.postMessage(reply, transfer);

try {
  const db = await PGlite.create((workerData as { dataDir: string | undefined }).dataDir);
  /** Messages that came while a snapshot was being taken, answered after it. */
  let held: ToWorker[] | null = null;
  const answer = (received: ToWorker) => {
    if (held) return void held.push(received);
    if ("snapshot" in received) {
      held = [];
      void takeSnapshot(db)
        .then(
          (bytes) => post({ answer: bytes }, [bytes.buffer as ArrayBuffer]),
          (error: unknown) => post({ error: `the snapshot failed: ${error instanceof Error ? error.message : String(error)}` }),
        )
        .finally(() => {
          const waiting = held!;
          held = null;
          for (const next of waiting) answer(next);
        });
      return;
    }
    if ("close" in received) {
      port.off("message", answer);
      void db.close().then(
        () => post({ closed: true }),
        (error: unknown) => post({ error: String(error) }),
      );
      return;
    }
    try {
      // A copy of its own, handed over rather than copied again.
      const bytes = new Uint8Array(exchange(db, received.message));
      post({ answer: bytes }, [bytes.buffer]);
    } catch (error) {
      post({ error: error instanceof Error ? error.message : String(error) });
    }
  };
  port.on("message", answer);
  post({ ready: true });
} catch (error) {
  post({ failed: error instanceof Error ? (error.stack ?? error.message) : String(error) });
}
