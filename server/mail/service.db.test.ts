import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import pino from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "#tests/support/database.ts";
import { MINUTE, START } from "#tests/support/clock.ts";
import { startSmtpServer, type TestSmtpServer } from "#tests/support/smtp.ts";
import { jobs, mailOutbox } from "#server/db/schema/index.ts";
import { createJobRunner } from "#server/jobs/runner.ts";
import { createLogger, type Logger } from "#server/logger.ts";
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

/** The clock of the services these tests make (they read no other): moved by hand to a job's next try. */
let clock = START;
const now = () => clock;

/** A mail service as the portal makes one, with its own job runner (an instance of the portal). */
function mailService(smtpUrl: string | undefined, logger: Logger = log) {
  const runner = createJobRunner({ db: database.db, log: logger, now });
  return { mail: createMailService({ db: database.db, smtpUrl, from, runner, log: logger, now }), runner };
}

async function outboxRow(to: string) {
  const [row] = await database.db.select().from(mailOutbox).where(eq(mailOutbox.to, to));
  return row;
}

/** A logger that keeps every line it writes. */
function capturingLogger() {
  const lines: string[] = [];
  const logger = pino({ level: "debug" }, { write: (line: string) => void lines.push(line) });
  return { logger, lines };
}

describe("mail service without SMTP (outbox)", () => {
  it("stores each mail in the outbox and lists the newest first", async () => {
    const { mail } = mailService(undefined);
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
    const { mail } = mailService(undefined);
    expect(await mail.getOutboxMail(randomUUID())).toBeNull();
    expect(await mail.getOutboxMail("not-a-uuid")).toBeNull();
    expect(await mail.getOutboxMail("'; drop table mail_outbox; --")).toBeNull();
  });

  it("logs the id, never the recipient, the body or the link", async () => {
    const { logger, lines } = capturingLogger();
    const { mail } = mailService(undefined, logger);
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
  it("delivers through the SMTP server, decoded as written, and keeps a record without the body", async () => {
    const { logger, lines } = capturingLogger();
    const { mail } = mailService(smtp.url, logger);
    expect(mail.mode).toBe("smtp");
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

    // Who, what and when stay (the data download lists them); the link does not.
    expect(await outboxRow("niccolo@example.com")).toMatchObject({
      subject: "Reimposta la tua password",
      sentAt: clock,
      text: "",
      html: "",
    });
    expect(lines.join("\n")).not.toContain("smtp-secret-token");
    expect(lines.join("\n")).not.toContain("niccolo@example.com");
  });

  it("decodes encoded-word subjects and quoted-printable or base64 bodies as nodemailer writes them", async () => {
    const { mail } = mailService(smtp.url);
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

  it("keeps a mail the SMTP server cannot take, and delivers it at a later try", async () => {
    const down = await startSmtpServer();
    await down.close();
    const { mail, runner } = mailService(down.url);
    // Nothing for the caller to handle: the mail is owed, not lost.
    await mail.send({ to: "attesa@example.com", subject: "In attesa", text: "Testo in attesa", html: "<p>x</p>" });
    expect(await outboxRow("attesa@example.com")).toMatchObject({ sentAt: null, text: "Testo in attesa" });

    const back = await startSmtpServer({ port: Number(new URL(down.url).port) });
    try {
      // Not before its next try is due (a minute after the first).
      await runner.runDue();
      expect(await outboxRow("attesa@example.com")).toMatchObject({ sentAt: null });
      clock = new Date(clock.getTime() + MINUTE);
      await runner.runDue();
      expect((await back.waitForMail((m) => m.to.includes("attesa@example.com"))).text).toBe("Testo in attesa");
      expect(await outboxRow("attesa@example.com")).toMatchObject({ sentAt: clock, text: "" });
    } finally {
      await back.close();
    }
  });

  it("delivers a mail owed in a transaction only if it commits, even when its instance dies after the commit", async () => {
    const { mail, runner } = mailService(smtp.url);
    await expect(
      database.db.transaction(async (tx) => {
        await mail.owe(tx, { to: "annullato@example.com", subject: "Annullato", text: "x", html: "<p>x</p>" });
        throw new Error("the change failed");
      }),
    ).rejects.toThrow("the change failed");
    // Committed, and the instance dies before it calls the delivery it was given.
    await database.db.transaction((tx) =>
      mail.owe(tx, { to: "orfano@example.com", subject: "Orfano", text: "x", html: "<p>x</p>" }),
    );

    // Another instance's tick delivers it.
    expect(await outboxRow("orfano@example.com")).toMatchObject({ sentAt: null });
    await mailService(smtp.url).runner.runDue();
    await smtp.waitForMail((m) => m.to.includes("orfano@example.com"));
    expect(await outboxRow("orfano@example.com")).toMatchObject({ sentAt: clock });
    // Once: the first instance's tick finds it delivered.
    await runner.runDue();
    expect(smtp.messages.filter((m) => m.to.includes("orfano@example.com"))).toHaveLength(1);
    expect(await outboxRow("annullato@example.com")).toBeUndefined();
    expect(smtp.messages.filter((m) => m.to.includes("annullato@example.com"))).toEqual([]);
  });

  it("delivers a mail once when its own call and the ticks of two instances run it at the same moment", async () => {
    const instances = [mailService(smtp.url), mailService(smtp.url), mailService(smtp.url)];
    const deliver = await database.db.transaction((tx) =>
      instances[0]!.mail.owe(tx, { to: "una-volta@example.com", subject: "Una volta", text: "x", html: "<p>x</p>" }),
    );
    await Promise.all([deliver(), instances[1]!.runner.runDue(), instances[2]!.runner.runDue(), deliver()]);
    await smtp.waitForMail((m) => m.to.includes("una-volta@example.com"));
    expect(smtp.messages.filter((m) => m.to.includes("una-volta@example.com"))).toHaveLength(1);
    const { id } = (await outboxRow("una-volta@example.com"))!;
    const [job] = await database.db
      .select()
      .from(jobs)
      .where(eq(jobs.key, `mail.deliver:${id}`));
    expect(job).toMatchObject({ status: "done", attempts: 1 });
  });
});
