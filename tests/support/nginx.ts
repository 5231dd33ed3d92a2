// Debian's nginx in front of a portal, with the configuration docs/operating.md ships
// (deploy/nginx/portal.conf), on a port of its own, for the tests.
import { spawn } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { accepts, freePort } from "#scripts/bench/server.ts";

/** Debian's nginx (`apt-get install nginx-light`; .ci/run installs it), or undefined. */
export const NGINX_BINARY = ["/usr/sbin/nginx", "/usr/bin/nginx"].find((candidate) => existsSync(candidate));

const SHIPPED_CONFIG = path.join(import.meta.dirname, "../../deploy/nginx/portal.conf");

/** `text` with `from` replaced by `to`, which it must contain: the shipped file changed shape otherwise. */
function replaced(text: string, from: string, to: string): string {
  if (!text.includes(from))
    throw new Error(`deploy/nginx/portal.conf no longer contains "${from}": update tests/support/nginx.ts`);
  return text.replace(from, to);
}

/** The shipped upstream's server lines, each instance with its parameters. */
const SHIPPED_SERVERS = /^( *)server 127\.0\.0\.1:300\d( [^;]*)?;\n/gm;

/** The shipped upstream block's server lines pointed at `upstreams` (host:port each), with the shipped parameters. */
function withUpstreams(site: string, upstreams: string[]): string {
  const shipped = [...site.matchAll(SHIPPED_SERVERS)];
  if (shipped.length === 0)
    throw new Error("deploy/nginx/portal.conf no longer has `server 127.0.0.1:300x` lines: update tests/support/nginx.ts");
  const [, indent, parameters = ""] = shipped[0]!;
  const lines = upstreams.map((upstream) => `${indent}server ${upstream}${parameters};\n`).join("");
  // The first shipped line becomes the instances' lines, the others go.
  let first = true;
  return site.replace(SHIPPED_SERVERS, () => (first ? ((first = false), lines) : ""));
}

/**
 * nginx with the shipped server block, pointed at `upstream` (host:port, or several). `forwardedFor`
 * replaces the shipped X-Forwarded-For line's value (e.g. `$proxy_add_x_forwarded_for`, Debian's
 * usual, which appends the client's address to what the client sent).
 */
export async function startNginx({ upstream, forwardedFor }: { upstream: string | string[]; forwardedFor?: string }) {
  if (!NGINX_BINARY) throw new Error("nginx is not installed (apt-get install nginx-light)");
  const dir = mkdtempSync(path.join(tmpdir(), "portal-nginx-"));
  // nginx's workers run as nobody when started by root: they read and write in here.
  chmodSync(dir, 0o755);
  const port = await freePort();
  let site = readFileSync(SHIPPED_CONFIG, "utf8");
  site = withUpstreams(site, [upstream].flat());
  site = replaced(site, "listen 80;", `listen 127.0.0.1:${port};`);
  if (forwardedFor) site = replaced(site, "X-Forwarded-For $remote_addr;", `X-Forwarded-For ${forwardedFor};`);
  writeFileSync(path.join(dir, "portal.conf"), site);
  const temp = ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"].map((kind) => `${kind}_temp_path ${dir}/${kind};`);
  writeFileSync(
    path.join(dir, "nginx.conf"),
    [
      "daemon off;",
      "worker_processes 1;",
      `pid ${dir}/nginx.pid;`,
      `error_log ${dir}/error.log warn;`,
      "events { worker_connections 512; }",
      `http { access_log off; ${temp.join(" ")} include ${dir}/portal.conf; }`,
    ].join("\n"),
  );

  const nginx = spawn(NGINX_BINARY, ["-p", dir, "-c", path.join(dir, "nginx.conf")], { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  nginx.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => nginx.once("exit", () => resolve()));
  for (let wait = 0; !(await accepts(port)); wait++) {
    if (nginx.exitCode !== null || wait > 100) {
      nginx.kill("SIGTERM");
      throw new Error(`nginx did not start: ${stderr}${readLog(dir)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    origin: `http://127.0.0.1:${port}`,
    /** nginx's error log so far (its "upstream" lines say what it did with each instance). */
    errorLog: () => readLog(dir),
    async close() {
      nginx.kill("SIGTERM");
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function readLog(dir: string): string {
  const file = path.join(dir, "error.log");
  return existsSync(file) ? readFileSync(file, "utf8") : "";
}
