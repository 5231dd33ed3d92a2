// A small HTTP proxy in front of a portal for the tests, that forwards as Debian's nginx does with
// its usual `proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for`: the address that
// connected to it is appended to whatever X-Forwarded-For the client sent.
import http from "node:http";
import type { AddressInfo } from "node:net";

/** Headers of one connection only (RFC 9110 §7.6.1): not forwarded. */
const HOP_BY_HOP = new Set(["connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "te", "trailer"]);

const endToEnd = (headers: http.IncomingHttpHeaders) =>
  Object.fromEntries(Object.entries(headers).filter(([name]) => !HOP_BY_HOP.has(name)));

export async function startForwardingProxy(upstream: string) {
  const target = new URL(upstream);
  const server = http.createServer((req, res) => {
    const headers = endToEnd(req.headers);
    const connected = req.socket.remoteAddress ?? "";
    const sent = req.headers["x-forwarded-for"];
    headers["x-forwarded-for"] = sent ? `${sent}, ${connected}` : connected;
    const forwarded = http.request(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, endToEnd(answer.headers));
        answer.pipe(res);
      },
    );
    forwarded.on("error", () => res.writeHead(502).end());
    req.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
