// Who holds the embedded database. PGlite is PostgreSQL in one process, and nothing stops a second
// process from opening the same folder (we tried: it opens, and two writers would corrupt it). So
// the process that opens DATA_DIR's database, the portal or an operator's command, first listens
// on a Unix socket in DATA_DIR (`portal.sock`); a process that finds someone answering there leaves
// the database alone. A socket left by a process that died answers nobody and is taken over.
//
// The socket is also how an operator's `backup` reaches the running portal: the portal takes the
// snapshot (pglite-snapshot.ts) between two statements and sends its bytes back. It is reachable
// only from this machine, and only by the portal's own user (and root): DATA_DIR is the owner's
// only (0700) and the socket is 0600 (connecting to a Unix socket needs write permission on it).
// Nothing on the network reaches it, and it does nothing but say who holds the database and hand
// out snapshots.
//
// The exchange: on connection the holder writes one line of JSON, `{"holder":"portal","pid":N}`;
// the other side may then send `{"snapshot":{"actor":"operator:mrossi"}}` and a newline, and reads
// `{"ok":true,"bytes":N,"ms":M}` and a newline followed by the N bytes of the tarball, or
// `{"ok":false,"error":"…"}`.
import { chmodSync, existsSync, unlinkSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { ConfigError } from "#server/config.ts";

const OWNER_SOCKET = "portal.sock";
/** Linux's limit on a Unix socket's path (sun_path, 108 bytes with its NUL). */
const MAX_SOCKET_PATH_BYTES = 107;
/** How long a holder has to say who it is. */
const HELLO_TIMEOUT_MS = 5_000;
/** A request line longer than this is no request. */
const MAX_REQUEST_BYTES = 4_096;

export type HolderKind = "portal" | "operator";
type Hello = { holder: HolderKind; pid: number };
/** Who asks (`operator:<name>`) and the file's name, for the holder's audit log. */
export type SnapshotRequest = { actor: string; file: string };
export type SnapshotReply = { bytes: Uint8Array; ms: number; holder: Hello };

/** Another process holds DATA_DIR's database: its message names which. */
export class DataDirHeld extends ConfigError {
  override name = "DataDirHeld";
  readonly holder: Hello;
  constructor(dataDir: string, holder: Hello) {
    super(`${describeHolder(holder)} holds the embedded database in ${dataDir} (DATA_DIR): PGlite is one process at a time.`);
    this.holder = holder;
  }
}

const describeHolder = ({ holder, pid }: Hello) =>
  pid === 0
    ? "A process that does not say which"
    : holder === "portal"
      ? `The portal (pid ${pid})`
      : `An operator's command (pid ${pid})`;

/** DATA_DIR's socket; a path too long for a socket is a configuration error. */
export function ownerSocketPath(dataDir: string): string {
  const socket = path.join(path.resolve(dataDir), OWNER_SOCKET);
  if (Buffer.byteLength(socket) > MAX_SOCKET_PATH_BYTES) {
    throw new ConfigError(
      `DATA_DIR ${dataDir} is too long: its socket ${socket} needs a path of at most ${MAX_SOCKET_PATH_BYTES} bytes.`,
    );
  }
  return socket;
}

/** What the holder answers to a snapshot request: the snapshot, and what to do once it is sent. */
type SnapshotService = {
  snapshot(): Promise<Uint8Array>;
  /** After the bytes are handed over (the portal records it in the audit log). */
  onSnapshot?(request: SnapshotRequest, bytes: number): Promise<void>;
};

export type DataDirHold = {
  /** From now on, snapshot requests are answered (until then: refused, the database is not open yet). */
  serveSnapshots(service: SnapshotService): void;
  close(): Promise<void>;
};

/**
 * Claims DATA_DIR's database for this process, before it opens it; throws DataDirHeld when another
 * process holds it.
 */
export async function holdDataDir(dataDir: string, holder: HolderKind): Promise<DataDirHold> {
  const socketPath = ownerSocketPath(dataDir);
  const hello: Hello = { holder, pid: process.pid };
  let service: SnapshotService | null = null;
  /** One snapshot at a time: a second request waits for the first. */
  let queue: Promise<unknown> = Promise.resolve();

  const server = net.createServer((socket) => {
    socket.on("error", () => socket.destroy());
    socket.write(`${JSON.stringify(hello)}\n`);
    void readLine(socket, MAX_REQUEST_BYTES).then(
      async (line) => {
        const request = parseRequest(line);
        if (!request) return void socket.end();
        const reply = (answer: object, body?: Uint8Array) => {
          socket.write(`${JSON.stringify(answer)}\n`);
          if (body) socket.write(body);
          socket.end();
        };
        if (!service) {
          return reply({
            ok: false,
            error:
              holder === "portal"
                ? `${describeHolder(hello)} is still opening its database: try again in a moment.`
                : `${describeHolder(hello)} holds the database: try again when it has ended.`,
          });
        }
        const serving = service;
        const turn = queue.then(async () => {
          const started = performance.now();
          try {
            const bytes = await serving.snapshot();
            reply({ ok: true, bytes: bytes.length, ms: Math.round(performance.now() - started) }, bytes);
            await serving.onSnapshot?.(request, bytes.length);
          } catch (error) {
            reply({ ok: false, error: error instanceof Error ? error.message : String(error) });
          }
        });
        queue = turn.catch(() => undefined);
        await turn;
      },
      () => socket.destroy(),
    );
  });

  await listenClaiming(server, socketPath, dataDir);
  // DATA_DIR is 0700 already; the socket itself is the owner's only too.
  chmodSync(socketPath, 0o600);
  return {
    serveSnapshots(given) {
      service = given;
    },
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      if (existsSync(socketPath)) unlinkSync(socketPath);
    },
  };
}

/** Listens on the socket; one a dead process left is taken over, one someone answers on is theirs. */
async function listenClaiming(server: net.Server, socketPath: string, dataDir: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(socketPath, () => {
          server.off("error", reject);
          resolve();
        });
      });
      return;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== "EADDRINUSE")
        throw new ConfigError(`DATA_DIR: cannot make its socket ${socketPath}: ${code ?? String(error)}`);
      if (attempt > 2) throw error;
      const holder = await whoHolds(socketPath);
      if (holder) throw new DataDirHeld(dataDir, holder);
      unlinkSync(socketPath);
    }
  }
}

/** Who holds DATA_DIR's database, or null when no process does. */
export async function dataDirHolder(dataDir: string): Promise<Hello | null> {
  return whoHolds(ownerSocketPath(dataDir));
}

async function whoHolds(socketPath: string): Promise<Hello | null> {
  const socket = await connect(socketPath);
  if (!socket) return null;
  try {
    return await readHello(socket);
  } finally {
    socket.destroy();
  }
}

/**
 * Asks the process holding DATA_DIR's database for a snapshot of it. Null when no process holds
 * it (the caller may then open the database itself); an Error with the holder's reason when it
 * cannot give one.
 */
export async function requestSnapshot(dataDir: string, request: SnapshotRequest): Promise<SnapshotReply | null> {
  const socket = await connect(ownerSocketPath(dataDir));
  if (!socket) return null;
  try {
    const holder = await readHello(socket);
    socket.write(`${JSON.stringify({ snapshot: request })}\n`);
    const received = await readAll(socket);
    const newline = received.indexOf(0x0a);
    if (newline < 0) throw new Error(`${describeHolder(holder)} closed the connection without an answer.`);
    const answer = JSON.parse(received.subarray(0, newline).toString("utf8")) as
      { ok: true; bytes: number; ms: number } | { ok: false; error: string };
    if (!answer.ok) throw new Error(answer.error);
    const bytes = received.subarray(newline + 1);
    if (bytes.length !== answer.bytes) {
      throw new Error(`${describeHolder(holder)} sent ${bytes.length} of the snapshot's ${answer.bytes} bytes.`);
    }
    return { bytes, ms: answer.ms, holder };
  } finally {
    socket.destroy();
  }
}

/** A connection to the socket; null when nobody listens there (no file, or one a dead process left). */
function connect(socketPath: string): Promise<net.Socket | null> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(socketPath);
    socket.once("connect", () => {
      socket.removeAllListeners("error");
      socket.on("error", () => undefined);
      resolve(socket);
    });
    socket.once("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT" || error.code === "ECONNREFUSED") resolve(null);
      else reject(new Error(`Cannot reach ${socketPath}: ${error.code ?? error.message}`, { cause: error }));
    });
  });
}

async function readHello(socket: net.Socket): Promise<Hello> {
  const line = await readLine(socket, MAX_REQUEST_BYTES, HELLO_TIMEOUT_MS).catch(() => null);
  const hello = line ? (safeJson(line) as Partial<Hello> | null) : null;
  if (hello && (hello.holder === "portal" || hello.holder === "operator") && Number.isInteger(hello.pid)) {
    return { holder: hello.holder, pid: hello.pid! };
  }
  // Someone listens there but does not say who (in time): the database is not ours to open.
  return { holder: "portal", pid: 0 };
}

function parseRequest(line: string): SnapshotRequest | null {
  const request = safeJson(line) as { snapshot?: { actor?: unknown; file?: unknown } } | null;
  if (!request?.snapshot) return null;
  const { actor, file } = request.snapshot;
  return {
    actor: typeof actor === "string" && /^operator:[\w.@+-]{1,64}$/.test(actor) ? actor : "operator:unknown",
    file: typeof file === "string" ? file.slice(0, 255) : "",
  };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** The first line the socket sends (without its newline); the socket is then paused, the rest put back. */
function readLine(socket: net.Socket, maxBytes: number, timeoutMs?: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let received = Buffer.alloc(0);
    const timer = timeoutMs ? setTimeout(() => done(new Error("no answer in time")), timeoutMs) : undefined;
    const done = (error: Error | null, line?: string) => {
      clearTimeout(timer);
      socket.pause();
      socket.off("data", onData);
      socket.off("end", onEnd);
      socket.off("close", onEnd);
      if (error) reject(error);
      else resolve(line!);
    };
    const onData = (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const newline = received.indexOf(0x0a);
      if (newline >= 0) {
        const rest = received.subarray(newline + 1);
        if (rest.length) socket.unshift(rest);
        return done(null, received.subarray(0, newline).toString("utf8"));
      }
      if (received.length > maxBytes) done(new Error("line too long"));
    };
    const onEnd = () => done(new Error("closed before a whole line"));
    socket.on("data", onData);
    socket.once("end", onEnd);
    socket.once("close", onEnd);
    socket.resume();
  });
}

function readAll(socket: net.Socket): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.once("end", () => resolve(Buffer.concat(chunks)));
    socket.once("error", reject);
    socket.resume();
  });
}
