import { randomUUID } from "node:crypto";
import { count } from "drizzle-orm";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../tests/support/database.ts";
import { startSmtpServer, type TestSmtpServer } from "../../tests/support/smtp.ts";
import { mailOutbox } from "../db/schema.ts";
import { createLogger } from "../logger.ts";
import { createMailService } from "./service.ts";
import { passwordResetMail } from "./templates.ts";

const from = "Novalex Editore <noreply@novalex.example>";
const log = createLogger("silent");
let database: TestDatabase;
let smtp: TestSmtpServer;

beforeAll(async () => {
  [database, smtp] = await Promise.all([createTestDatabase({ seed: false }), startSmtpServer()]);
});
afterAll(async () => {
  await Promise.all([database?.destroy(), smtp?.close()]);
});

async function outboxCount() {
  const [row] = await database.db.select({ n: count() }).from(mailOutbox);
  return row!.n;
}

/** A logger that keeps every line it writes. */
function capturingLogger() {
  const lines: string[] = [];
  const logger = pino({ level: "debug" }, { write: (line: string) => void lines.push(line) });
  return { logger, lines };
}

describe("mail service without SMTP (outbox)", () => {
  it("stores each mail in the outbox and lists the newest first", async () => {
    const mail = createMailService({ db: database.db, smtpUrl: undefined, from, log });
    expect(mail.mode).toBe("outbox");
    for (const n of [1, 2, 3]) {
      await mail.send({ to: `cliente${n}@example.com`, subject: `Oggetto ${n}`, text: `Testo ${n}`, html: `<p>Testo ${n}</p>` });
    }

    const list = await mail.listOutbox();
    expect(list.map((m) => m.to)).toEqual(["cliente3@example.com", "cliente2@example.com", "cliente1@example.com"]);
    expect((await mail.listOutbox(2)).map((m) => m.subject)).toEqual(["Oggetto 3", "Oggetto 2"]);

    const one = await mail.getOutboxMail(list[1]!.id);
    expect(one).toMatchObject({
      to: "cliente2@example.com",
      subject: "Oggetto 2",
      text: "Testo 2",
      html: "<p>Testo 2</p>",
      sentAt: null,
    });
    expect(one!.createdAt).toBeInstanceOf(Date);
  });

  it("finds nothing for an unknown id or one that is not a UUID", async () => {
    const mail = createMailService({ db: database.db, smtpUrl: undefined, from, log });
    expect(await mail.getOutboxMail(randomUUID())).toBeNull();
    expect(await mail.getOutboxMail("not-a-uuid")).toBeNull();
    expect(await mail.getOutboxMail("'; drop table mail_outbox; --")).toBeNull();
  });

  it("logs the id, never the recipient, the body or the link", async () => {
    const { logger, lines } = capturingLogger();
    const mail = createMailService({ db: database.db, smtpUrl: undefined, from, log: logger });
    const link = "http://localhost:3000/forgot-password/reset/outbox-secret-token";
    await mail.send({ to: "anna@example.com", ...passwordResetMail({ firstname: "Anna", link }) });

    const [stored] = await mail.listOutbox(1);
    expect(stored!.text).toContain(link);
    expect(lines).toHaveLength(1);
    const entry = JSON.parse(lines[0]!);
    expect(entry).toMatchObject({ level: 30, mail: { id: stored!.id } });
    expect(lines[0]).not.toContain("anna@example.com");
    expect(entry.msg).toMatch(/outbox/);
    expect(lines[0]).not.toContain("outbox-secret-token");
    expect(lines[0]).not.toContain("Gentile");
  });
});

describe("mail service with SMTP", () => {
  it("delivers through the SMTP server, decoded as written, and leaves the outbox alone", async () => {
    const { logger, lines } = capturingLogger();
    const mail = createMailService({ db: database.db, smtpUrl: smtp.url, from, log: logger });
    expect(mail.mode).toBe("smtp");
    const before = await outboxCount();
    const link = "http://localhost:3000/forgot-password/reset/smtp-secret-token?a=1&b=2";

    await mail.send({ to: "niccolo@example.com", ...passwordResetMail({ firstname: "Niccolò", link }) });

    const received = await smtp.waitForMail((m) => m.to.includes("niccolo@example.com"));
    expect(received.from).toBe("noreply@novalex.example");
    expect(received.headers.from).toContain("Novalex Editore");
    expect(received.subject).toBe("Reimposta la tua password");
    expect(received.text).toContain("Gentile Niccolò,");
    expect(received.text).toContain("Il link è valido per 1 ora e può essere usato una sola volta.");
    expect(received.text).toContain(`\n${link}\n`);
    expect(received.html).toContain(`href="${link.replace("&", "&amp;")}"`);
    expect(received.text).toBe(passwordResetMail({ firstname: "Niccolò", link }).text);

    expect(await outboxCount()).toBe(before);
    expect(lines.join("\n")).not.toContain("smtp-secret-token");
  });

  it("decodes encoded-word subjects and quoted-printable or base64 bodies as nodemailer writes them", async () => {
    const mail = createMailService({ db: database.db, smtpUrl: smtp.url, from, log });
    const subject = "Perché è già ora? Sì: àèéìòù € “citazioni” — ".repeat(3).trim();
    const mostlyAscii = `Caffè e perché.\nUna riga lunga: ${"parola ".repeat(30)}fine.\nUguale = e link http://localhost:3000/a?b=c&d=é`;
    const mostlyAccented = "èéàòùì€".repeat(40) + "\nseconda riga è";

    await mail.send({ to: "qp@example.com", subject, text: mostlyAscii, html: "<p>è</p>" });
    await mail.send({ to: "b64@example.com", subject: "àèìòù", text: mostlyAccented, html: "<p>àèìòù</p>" });

    const qp = await smtp.waitForMail((m) => m.to.includes("qp@example.com"));
    expect(qp.raw).toMatch(/Content-Transfer-Encoding: quoted-printable/i);
    expect(qp.raw).toMatch(/Subject: =\?UTF-8\?/i);
    expect(qp.subject).toBe(subject);
    expect(qp.text).toBe(mostlyAscii);
    expect(qp.html).toBe("<p>è</p>");

    const b64 = await smtp.waitForMail((m) => m.to.includes("b64@example.com"));
    expect(b64.raw).toMatch(/Content-Transfer-Encoding: base64/i);
    expect(b64.subject).toBe("àèìòù");
    expect(b64.text).toBe(mostlyAccented);
  });

  it("lets SMTP errors reach the caller", async () => {
    const closed = await startSmtpServer();
    await closed.close();
    const mail = createMailService({ db: database.db, smtpUrl: closed.url, from, log });
    const before = await outboxCount();
    await expect(mail.send({ to: "a@example.com", subject: "x", text: "x", html: "x" })).rejects.toThrow();
    expect(await outboxCount()).toBe(before);
  });
});
