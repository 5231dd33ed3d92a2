// What start-up checks before it writes anything (migrations, seed): the usual mistakes of a
// deployment stop here with one line naming the setting, instead of a stack after migrating.
import { createServer, type Server } from "node:net";
import pg from "pg";
import { ConfigError, type Config } from "./config.ts";
import type { Logger } from "./logger.ts";

/** How long start-up waits for PostgreSQL to accept a first connection. */
const DATABASE_CONNECT_TIMEOUT_MS = 5_000;

/** Refuses to start (ConfigError) when the port is taken or PostgreSQL cannot be reached. */
export async function preflight(config: Config): Promise<void> {
  await checkPortFree(config.host, config.port);
  const { url, directUrl } = config.database;
  if (url) await checkDatabaseReachable(url, "DATABASE_URL");
  if (directUrl && directUrl !== url) await checkDatabaseReachable(directUrl, "DATABASE_DIRECT_URL");
}

/** Says, at start, what a production instance runs without. */
export function warnAboutProduction(config: Config, log: Logger): void {
  if (!config.isProduction) return;
  if (!config.isHttps)
    log.warn(
      { origin: config.publicOrigin },
      "PUBLIC_ORIGIN is not https: cookies are sent without Secure and the __Host- prefix, and there is no HSTS (docs/operating.md, Deploying)",
    );
  if (!config.mail.smtpUrl) log.warn("MAIL_DISABLED=true: no mail is sent; each one waits in the outbox table");
}

function checkPortFree(host: string, port: number): Promise<void> {
  if (port === 0) return Promise.resolve(); // any free port, chosen at listen
  const probe = createServer();
  return listenOrExplain(probe, host, port, { exclusive: true }).then(
    () => new Promise((resolve) => probe.close(() => resolve())),
  );
}

/**
 * Listens on `host`:`port`, or rejects with a one-line ConfigError naming the setting at fault
 * (the port may be taken between the preflight and the server's own listen).
 */
export function listenOrExplain(server: Server, host: string, port: number, { exclusive = false } = {}): Promise<void> {
  return new Promise((resolve, reject) => {
    const refused = (error: NodeJS.ErrnoException) => reject(new ConfigError(listenProblem(host, port, error)));
    server.once("error", refused);
    server.listen({ host, port, exclusive }, () => {
      server.off("error", refused);
      resolve();
    });
  });
}

function listenProblem(host: string, port: number, error: NodeJS.ErrnoException): string {
  switch (error.code) {
    case "EADDRINUSE":
      return `PORT: ${host}:${port} is already in use (another instance, or another program): set PORT to a free port.`;
    case "EACCES":
      return `PORT: ${port} needs privileges to listen on: set a port above 1023 (the proxy listens on 80 and 443).`;
    case "EADDRNOTAVAIL":
    case "ENOTFOUND":
      return `HOST: ${host} is not an address of this machine (127.0.0.1 behind a proxy on it, 0.0.0.0 in a container).`;
    default:
      return `PORT: cannot listen on ${host}:${port}: ${error.code ?? error.message}.`;
  }
}

async function checkDatabaseReachable(url: string, setting: string): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: DATABASE_CONNECT_TIMEOUT_MS });
  // A connection that fails after connecting emits 'error': without a listener that is a crash.
  client.on("error", () => {});
  try {
    await client.connect();
  } catch (error) {
    throw new ConfigError(`${setting}: cannot connect to PostgreSQL at ${whereOf(url)}: ${databaseProblem(error)}.`);
  } finally {
    await client.end().catch(() => {});
  }
}

/** Host, port and database of the URL, never its password. */
function whereOf(url: string): string {
  const parsed = new URL(url);
  return `${parsed.hostname || "localhost"}:${parsed.port || 5432}${parsed.pathname}`;
}

function databaseProblem(error: unknown): string {
  const { code, message } = error as { code?: string; message?: string };
  if (code === "ECONNREFUSED") return "connection refused (is PostgreSQL running and listening on that port?)";
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") return "no such host";
  if (/timeout/i.test(message ?? "")) return `no answer in ${DATABASE_CONNECT_TIMEOUT_MS / 1000} s`;
  // PostgreSQL's own words: a wrong password, a database that does not exist.
  return message ?? String(error);
}
