// A TCP relay in front of the test PostgreSQL server that plays its outages without touching it
// (the server is shared by the whole run): connections cut, connections refused, the answer of
// a server that is shutting down or starting up (SQLSTATE 57P03), and a server that hangs (its
// processes frozen: connections accepted, nothing answered).
import net from "node:net";

export type PostgresRelay = {
  /** The database URL of `url`, through the relay. */
  url: string;
  /** Cuts every open connection (the server going down under them). */
  cutAll(): void;
  /** Refuses connections (no server listening) until `answer57P03` or `resume`. */
  refuse(): Promise<void>;
  /** Answers each new connection "the database system is starting up" and closes it. */
  answer57P03(): Promise<void>;
  /**
   * Forwards nothing more, either way, on the open connections, and accepts new ones without
   * answering them: what a client sees of a PostgreSQL whose processes are stopped (SIGSTOP).
   */
  blackhole(): Promise<void>;
  /** Relays again (new connections; those held by `blackhole` are cut). */
  resume(): Promise<void>;
  close(): Promise<void>;
};

type Mode = "relay" | "refuse" | "57P03" | "blackhole";

export async function startPostgresRelay(url: string): Promise<PostgresRelay> {
  const target = new URL(url);
  const sockets = new Set<net.Socket>();
  const pairs = new Set<[net.Socket, net.Socket]>();
  let mode: Mode = "relay";

  const server = net.createServer((client) => {
    sockets.add(client);
    client.on("close", () => sockets.delete(client));
    client.on("error", () => client.destroy());
    if (mode === "57P03") {
      // The startup message comes first; the server answers it with a FATAL ErrorResponse.
      client.once("data", () => client.end(startingUpError()));
      return;
    }
    if (mode === "blackhole") return; // accepted, never answered

    const upstream = net.connect(Number(target.port || 5432), target.hostname);
    sockets.add(upstream);
    upstream.on("close", () => {
      sockets.delete(upstream);
      client.destroy();
    });
    upstream.on("error", () => upstream.destroy());
    const pair: [net.Socket, net.Socket] = [client, upstream];
    pairs.add(pair);
    client.on("close", () => {
      pairs.delete(pair);
      upstream.destroy();
    });
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await listen(server, 0);
  const port = (server.address() as net.AddressInfo).port;

  async function setMode(next: Mode) {
    const listening = server.listening;
    if (mode === "blackhole" && next !== "blackhole") sockets.forEach((socket) => socket.destroy());
    if (next === "blackhole") {
      // Unpiped and paused, each side keeps what it receives: nothing reaches the other.
      for (const [client, upstream] of pairs) {
        client.unpipe(upstream);
        upstream.unpipe(client);
        client.pause();
        upstream.pause();
      }
    }
    mode = next;
    // close() stops listening at once; its callback would wait for the open connections.
    if (next === "refuse" && listening) server.close();
    if (next !== "refuse" && !listening) await listen(server, port);
  }

  const relayed = new URL(url);
  relayed.hostname = "127.0.0.1";
  relayed.port = String(port);
  return {
    url: relayed.toString(),
    cutAll: () => sockets.forEach((socket) => socket.destroy()),
    refuse: () => setMode("refuse"),
    answer57P03: () => setMode("57P03"),
    blackhole: () => setMode("blackhole"),
    resume: () => setMode("relay"),
    async close() {
      sockets.forEach((socket) => socket.destroy());
      if (server.listening) await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function listen(server: net.Server, port: number) {
  return new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
}

/** PostgreSQL's ErrorResponse message: 'E', its length, then (field code, C string) pairs, then 0. */
function startingUpError(): Buffer {
  const fields = [
    ["S", "FATAL"],
    ["V", "FATAL"],
    ["C", "57P03"],
    ["M", "the database system is starting up"],
  ];
  const body = Buffer.concat([...fields.map(([code, text]) => Buffer.from(`${code}${text}\0`)), Buffer.from([0])]);
  const length = Buffer.alloc(4);
  length.writeInt32BE(body.length + 4);
  return Buffer.concat([Buffer.from("E"), length, body]);
}
