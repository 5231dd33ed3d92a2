// The thread PGlite runs in when the server uses it (pglite-thread.ts). It opens the database in
// `workerData.dataDir`, says "ready" (or why not), then answers each message of Postgres's
// protocol with Postgres's whole answer, in the order they came: one exchange at a time, as
// PGlite itself works. Everything above the bytes (statements, transactions, values) is the
// server thread's.
import { parentPort, workerData } from "node:worker_threads";
import { PGlite } from "@electric-sql/pglite";
import { exchange } from "./pglite-protocol.ts";

/** What the server thread sends: protocol bytes to run, or the order to close. */
export type ToWorker = { message: Uint8Array } | { close: true };
/** What comes back: one of these per message, in order. */
export type FromWorker = { ready: true } | { failed: string } | { answer: Uint8Array } | { error: string } | { closed: true };

const port = parentPort!;
const post = (reply: FromWorker, transfer: ArrayBuffer[] = []) => port.postMessage(reply, transfer);

try {
  const db = await PGlite.create((workerData as { dataDir: string | undefined }).dataDir);
  port.on("message", (received: ToWorker) => {
    if ("close" in received) {
      port.removeAllListeners("message");
      void db.close().then(
        () => post({ closed: true }),
        (error: unknown) => post({ error: String(error) }),
      );
      return;
    }
    try {
      // A copy of its own, handed over rather than copied again.
      const answer = new Uint8Array(exchange(db, received.message));
      post({ answer }, [answer.buffer]);
    } catch (error) {
      post({ error: error instanceof Error ? error.message : String(error) });
    }
  });
  post({ ready: true });
} catch (error) {
  post({ failed: error instanceof Error ? (error.stack ?? error.message) : String(error) });
}
