// A local SMTP server for tests: the real nodemailer client delivers to it over TCP, and the test
// reads what arrived. It parses just enough of RFC 5322 / MIME for what nodemailer produces:
// unfolded headers, the Subject's RFC 2047 encoded-words, and the text/plain (and text/html)
// part of a multipart message, decoded from quoted-printable or base64.
import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";

export type ReceivedMail = {
  /** Envelope sender (MAIL FROM). */
  from: string;
  /** Envelope recipients (RCPT TO). */
  to: string[];
  /** The message as received, headers and body. */
  raw: string;
  /** Header values by lower-case name (the first occurrence), unfolded, not decoded. */
  headers: Record<string, string>;
  /** Decoded Subject header. */
  subject: string;
  /** Decoded text/plain body, with "\n" line ends ("" when the message has none). */
  text: string;
  /** Decoded text/html body ("" when the message has none). */
  html: string;
};

export type TestSmtpServer = {
  /** smtp://127.0.0.1:<port>, for SMTP_URL or nodemailer.createTransport. */
  url: string;
  /** Every mail received so far, oldest first. */
  messages: ReceivedMail[];
  /** The first mail, already received or still to come, that matches; rejects after timeoutMs. */
  waitForMail(predicate: (mail: ReceivedMail) => boolean, timeoutMs?: number): Promise<ReceivedMail>;
  close(): Promise<void>;
};

export async function startSmtpServer({
  port: wantedPort = 0,
  onMail,
}: { port?: number; onMail?: (mail: ReceivedMail) => void } = {}): Promise<TestSmtpServer> {
  const messages: ReceivedMail[] = [];
  const waiters = new Set<(mail: ReceivedMail) => void>();

  const server = new SMTPServer({
    logger: false,
    disabledCommands: ["STARTTLS"],
    authOptional: true,
    // A URL with credentials (smtp://user:pass@…) is accepted too, without TLS.
    allowInsecureAuth: true,
    onAuth(auth, _session, callback) {
      callback(null, { user: auth.username ?? "test" });
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("error", callback);
      stream.on("end", () => {
        const raw = Buffer.concat(chunks).toString("utf8");
        const { mailFrom, rcptTo } = session.envelope;
        const mail: ReceivedMail = {
          from: mailFrom ? mailFrom.address : "",
          to: rcptTo.map((r) => r.address),
          raw,
          ...parseMessage(raw),
        };
        messages.push(mail);
        onMail?.(mail);
        for (const notify of [...waiters]) notify(mail);
        callback();
      });
    },
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(wantedPort, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  // Connection errors (a client hanging up) must not crash the test run.
  server.on("error", () => {});
  const { port } = server.server.address() as AddressInfo;

  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    waitForMail(predicate, timeoutMs = 5000) {
      const found = messages.find(predicate);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const onMail = (mail: ReceivedMail) => {
          if (!predicate(mail)) return;
          clearTimeout(timer);
          waiters.delete(onMail);
          resolve(mail);
        };
        const timer = setTimeout(() => {
          waiters.delete(onMail);
          reject(new Error(`No matching mail within ${timeoutMs} ms (${messages.length} received)`));
        }, timeoutMs);
        waiters.add(onMail);
      });
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

// ---------------------------------------------------------------- minimal MIME parsing

type Entity = { headers: Map<string, string>; body: string };

function parseMessage(raw: string): Pick<ReceivedMail, "headers" | "subject" | "text" | "html"> {
  const entity = parseEntity(raw.replace(/\r\n/g, "\n"));
  const found: { text?: string; html?: string } = {};
  collectBodies(entity, found);
  return {
    headers: Object.fromEntries(entity.headers),
    subject: decodeEncodedWords(entity.headers.get("subject") ?? ""),
    text: found.text ?? "",
    html: found.html ?? "",
  };
}

/** Splits headers from body and unfolds the headers (a line break before white space is removed). */
function parseEntity(source: string): Entity {
  const end = source.indexOf("\n\n");
  const head = end === -1 ? source : source.slice(0, end);
  const body = end === -1 ? "" : source.slice(end + 2);
  const headers = new Map<string, string>();
  for (const line of head.replace(/\n(?=[ \t])/g, "").split("\n")) {
    const colon = line.indexOf(":");
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    if (!headers.has(name)) headers.set(name, line.slice(colon + 1).trim());
  }
  return { headers, body };
}

/** Walks multipart entities depth first; keeps the first text/plain and the first text/html. */
function collectBodies(entity: Entity, found: { text?: string; html?: string }): void {
  const { type, params } = parseContentType(entity.headers.get("content-type") ?? "text/plain");
  if (type.startsWith("multipart/")) {
    if (!params.boundary) return;
    for (const part of splitMultipart(entity.body, params.boundary)) collectBodies(parseEntity(part), found);
    return;
  }
  if (entity.headers.get("content-disposition")?.toLowerCase().startsWith("attachment")) return;
  const key = type === "text/plain" ? "text" : type === "text/html" ? "html" : null;
  if (!key || found[key] !== undefined) return;
  const bytes = decodeTransfer(entity.body, entity.headers.get("content-transfer-encoding") ?? "7bit");
  found[key] = decodeCharset(bytes, params.charset).replace(/\r\n/g, "\n");
}

function parseContentType(value: string): { type: string; params: Record<string, string> } {
  const semicolon = value.indexOf(";");
  const type = (semicolon === -1 ? value : value.slice(0, semicolon)).trim().toLowerCase();
  const params: Record<string, string> = {};
  const paramPattern = /;\s*([^\s=;]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s;]*))/g;
  for (const m of value.slice(Math.max(semicolon, 0)).matchAll(paramPattern)) {
    params[m[1]!.toLowerCase()] = m[2] !== undefined ? m[2].replace(/\\(.)/g, "$1") : (m[3] ?? "");
  }
  return { type, params };
}

/** The parts between "--boundary" lines, up to "--boundary--"; preamble and epilogue dropped. */
function splitMultipart(body: string, boundary: string): string[] {
  const delimiter = `--${boundary}`;
  const parts: string[] = [];
  let current: string[] | null = null;
  for (const line of body.split("\n")) {
    const trimmed = line.replace(/[ \t]+$/, "");
    if (trimmed === `${delimiter}--`) {
      if (current) parts.push(current.join("\n"));
      return parts;
    }
    if (trimmed === delimiter) {
      if (current) parts.push(current.join("\n"));
      current = [];
      continue;
    }
    current?.push(line);
  }
  if (current) parts.push(current.join("\n"));
  return parts;
}

function decodeTransfer(body: string, encoding: string): Buffer {
  switch (encoding.trim().toLowerCase()) {
    case "base64":
      return Buffer.from(body.replace(/\s+/g, ""), "base64");
    case "quoted-printable":
      // Trailing white space of an encoded line is padding; "=" at the end of a line is a soft break.
      return decodeQuotedPrintable(body.replace(/[ \t]+$/gm, "").replace(/=\n/g, ""));
    default:
      return Buffer.from(body, "utf8");
  }
}

/** "=XX" becomes the byte 0xXX; everything else stands for itself. */
function decodeQuotedPrintable(value: string): Buffer {
  const chunks: Buffer[] = [];
  let last = 0;
  for (const m of value.matchAll(/=([0-9A-Fa-f]{2})/g)) {
    chunks.push(Buffer.from(value.slice(last, m.index), "utf8"), Buffer.from([parseInt(m[1]!, 16)]));
    last = m.index + 3;
  }
  chunks.push(Buffer.from(value.slice(last), "utf8"));
  return Buffer.concat(chunks);
}

function decodeCharset(bytes: Buffer, charset = "utf-8"): string {
  try {
    return new TextDecoder(charset).decode(bytes);
  } catch {
    return new TextDecoder("utf-8").decode(bytes);
  }
}

/**
 * RFC 2047: "=?charset?B|Q?…?=" words. White space between two adjacent encoded words is
 * dropped, and their bytes are joined before decoding (a character may span two words).
 */
function decodeEncodedWords(value: string): string {
  const wordPattern = /=\?([^?\s]+)\?([BbQq])\?([^?\s]*)\?=/g;
  let out = "";
  let pending: { charset: string; bytes: Buffer[] } | null = null;
  let last = 0;
  const flush = () => {
    if (pending) out += decodeCharset(Buffer.concat(pending.bytes), pending.charset);
    pending = null;
  };
  for (const m of value.matchAll(wordPattern)) {
    const between = value.slice(last, m.index);
    const charset = m[1]!.split("*")[0]!.toLowerCase(); // "UTF-8*it" carries an RFC 2231 language
    const bytes = m[2]!.toUpperCase() === "B" ? Buffer.from(m[3]!, "base64") : decodeQuotedPrintable(m[3]!.replaceAll("_", " "));
    const adjacent = pending !== null && /^[ \t]*$/.test(between);
    if (adjacent && pending!.charset === charset) {
      pending!.bytes.push(bytes);
    } else {
      flush();
      if (!adjacent) out += between;
      pending = { charset, bytes: [bytes] };
    }
    last = m.index + m[0].length;
  }
  flush();
  return out + value.slice(last);
}
