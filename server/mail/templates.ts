// The portal's mails, in Italian. Each has a plain-text body and a simple HTML body: one column
// at most 600px wide, inline styles only (mail clients drop <style> and ignore classes), no
// tables, no images. Every interpolated value is escaped for HTML.
//
// The links' expiry is decided where the tokens are issued; these texts only announce it.

import { escapeMarkup } from "#server/lib/escape.ts";
import { withArticle } from "#shared/format.ts";

export type MailContent = { subject: string; text: string; html: string };

/** How long a password link lasts, as the mails announce it. */
const PASSWORD_LINK_VALIDITY_TEXT = "1 ora";

const BRAND = "#0b2545";
const BUTTON = "#a4243b";
const INK = "#1c2430";
const MUTED = "#5b6472";
const PAPER = "#f7f5f0";
const LINE = "#d9dde3";
const SIGNATURE = "Novalex Editore";

export function passwordResetMail({ firstname, link }: { firstname: string | null; link: string }): MailContent {
  return compose({
    subject: "Reimposta la tua password",
    firstname,
    intro: ["abbiamo ricevuto una richiesta di reimpostare la password del tuo account Novalex Editore."],
    action: { lead: "Per scegliere una nuova password apri questo link:", label: "Reimposta la password", url: httpUrl(link) },
    outro: [
      `Il link è valido per ${PASSWORD_LINK_VALIDITY_TEXT} e può essere usato una sola volta.`,
      "Se non hai chiesto tu di reimpostare la password, puoi ignorare questa e-mail: la tua password resterà invariata.",
    ],
  });
}

export function migratedAccountMail({ firstname, link }: { firstname: string | null; link: string }): MailContent {
  return compose({
    subject: "Imposta la password del tuo nuovo account",
    firstname,
    intro: [
      "il tuo account del negozio online Novalex Editore è stato trasferito sul nuovo portale clienti.",
      "Per motivi di sicurezza, prima di accedere per la prima volta al nuovo portale devi impostare una nuova password.",
    ],
    action: { lead: "Per impostare la password apri questo link:", label: "Imposta la password", url: httpUrl(link) },
    outro: [
      `Il link è valido per ${PASSWORD_LINK_VALIDITY_TEXT} e può essere usato una sola volta.`,
      "Se non hai un account Novalex Editore, puoi ignorare questa e-mail.",
    ],
  });
}

/** How long a link confirming a new e-mail address lasts, as the mails announce it. */
const EMAIL_LINK_VALIDITY_TEXT = "24 ore";

/** To the new address: the link that makes it the account's e-mail. */
export function emailChangeConfirmationMail({ firstname, link }: { firstname: string | null; link: string }): MailContent {
  return compose({
    subject: "Conferma il tuo nuovo indirizzo email",
    firstname,
    intro: ["abbiamo ricevuto la richiesta di usare questo indirizzo email per il tuo account Novalex Editore."],
    action: {
      lead: "Per confermare il nuovo indirizzo apri questo link:",
      label: "Conferma l'indirizzo email",
      url: httpUrl(link),
    },
    outro: [
      `Il link è valido per ${EMAIL_LINK_VALIDITY_TEXT} e può essere usato una sola volta. Fino ad allora il tuo account continua a usare l'indirizzo precedente.`,
      "Se non hai chiesto tu di cambiare indirizzo, puoi ignorare questa e-mail: il tuo account non cambierà.",
    ],
  });
}

/**
 * To the new address when an account already has it: nothing changes, and only the owner of
 * the mailbox learns why (the profile page answers the same whether or not it is taken).
 */
export function emailChangeTakenMail({ forgotPasswordUrl }: { forgotPasswordUrl: string }): MailContent {
  return compose({
    subject: "Richiesta di cambio indirizzo email",
    firstname: null,
    intro: [
      "qualcuno ha chiesto di usare questo indirizzo email per un account Novalex Editore, ma l'indirizzo è già associato a un altro account: per questo non è stato cambiato nulla.",
    ],
    action: {
      lead: "Se l'account con questo indirizzo è tuo e non ricordi la password, puoi reimpostarla qui:",
      label: "Reimposta la password",
      url: httpUrl(forgotPasswordUrl),
    },
    outro: ["Se non hai chiesto tu di usare questo indirizzo, puoi ignorare questa e-mail."],
  });
}

/** To the current address: a change was asked for; what to do if it was not the customer. */
export function emailChangeNoticeMail({
  firstname,
  changePasswordUrl,
}: {
  firstname: string | null;
  changePasswordUrl: string;
}): MailContent {
  return compose({
    subject: "Richiesta di cambio del tuo indirizzo email",
    firstname,
    intro: [
      "abbiamo ricevuto la richiesta di cambiare l'indirizzo email del tuo account Novalex Editore.",
      "L'indirizzo cambierà solo quando verrà aperto il link di conferma che abbiamo inviato al nuovo indirizzo; fino ad allora continuerai a ricevere le nostre e-mail qui.",
    ],
    action: {
      lead: "Se non sei stato tu, qualcuno conosce la tua password: cambiala subito.",
      label: "Cambia la password",
      url: httpUrl(changePasswordUrl),
    },
    outro: ["Se sei stato tu, non devi fare nulla."],
  });
}

export function welcomeMail({ firstname, loginUrl }: { firstname: string | null; loginUrl: string }): MailContent {
  return compose({
    subject: "Benvenuto in Novalex Editore",
    firstname,
    intro: [
      "grazie per aver creato il tuo account sul portale clienti di Novalex Editore.",
      "Dal portale puoi attivare gli eBook e i corsi inclusi nei nostri libri, consultare i tuoi prodotti e i tuoi acquisti e gestire il tuo profilo.",
    ],
    action: { lead: "Per accedere apri questo link:", label: "Accedi al portale", url: httpUrl(loginUrl) },
    outro: [],
  });
}

export function orderConfirmationMail({
  firstname,
  orderCode,
  lines,
  total,
  receiptUrl,
}: {
  firstname: string | null;
  orderCode: string;
  /** "1 x EDU - Abbonamento 6 mesi: 4,50 €", formatted by the caller. */
  lines: string[];
  total: string;
  receiptUrl: string;
}): MailContent {
  return compose({
    subject: `Ordine confermato n° ${orderCode}`,
    firstname,
    intro: [
      `grazie per il tuo acquisto: abbiamo ricevuto il pagamento dell'ordine n° ${orderCode}.`,
      ...lines,
      `Totale pagato: ${total}.`,
      "I prodotti digitali sono già disponibili nella tua Dashboard.",
    ],
    action: { lead: "La ricevuta è sempre disponibile qui:", label: "Vedi la ricevuta", url: httpUrl(receiptUrl) },
    outro: ["Trovi tutti i tuoi ordini nella pagina I miei acquisti del portale."],
  });
}

const on = (date: string) => withArticle("il", date);
const until = (date: string) => withArticle("al", date);

/** An EDU order the portal closed because EDU became active while it was being paid (decision 024). */
export function orderRefusedForActiveEduMail({
  firstname,
  orderCode,
  eduUntil,
  refunded,
  orderUrl,
}: {
  firstname: string | null;
  orderCode: string;
  /** dd/mm/yyyy; null only if EDU ended meanwhile. */
  eduUntil: string | null;
  /** What the card was charged and is given back ("4,50 €"); null when nothing was charged. */
  refunded: string | null;
  orderUrl: string;
}): MailContent {
  return compose({
    subject: `Ordine n° ${orderCode} annullato: EDU è già attivo`,
    firstname,
    intro: [
      `non abbiamo completato l'ordine n° ${orderCode} dell'abbonamento EDU: mentre pagavi, EDU si è attivato sul tuo account (con un codice eBook+EDU o dal nostro servizio clienti)${eduUntil ? ` ed è attivo fino ${until(eduUntil)}` : ""}. Così non paghi due volte lo stesso periodo.`,
      refunded
        ? `L'importo di ${refunded} addebitato sulla tua carta ti viene rimborsato per intero: lo vedrai sull'estratto conto entro qualche giorno lavorativo.`
        : "Non ti abbiamo addebitato nulla.",
      "Quando il tuo accesso a EDU sarà terminato potrai abbonarti di nuovo dalla pagina EDU.",
    ],
    action: { lead: "Il riepilogo dell'ordine è qui:", label: "Vedi l'ordine", url: httpUrl(orderUrl) },
    outro: [],
  });
}

// ---------------------------------------------------------------- the EDU subscription

type SubscriptionMailBase = { firstname: string | null; planName: string };

export function subscriptionStartedMail({
  firstname,
  planName,
  monthly,
  nextCharge,
  manageUrl,
}: SubscriptionMailBase & { monthly: string; nextCharge: string | null; manageUrl: string }): MailContent {
  return compose({
    subject: "Il tuo abbonamento EDU è attivo",
    firstname,
    intro: [
      `il tuo abbonamento ${planName} è attivo: hai accesso illimitato a tutte le materie EDU, ai quiz e ai test di autovalutazione, alle mappe concettuali, ai casi pratici e ai glossari.`,
      `L'abbonamento dura 6 mesi, con una rata mensile di ${monthly} addebitata ogni mese sulla carta che hai usato, nello stesso giorno del mese.${nextCharge ? ` Il prossimo addebito è ${on(nextCharge)}.` : ""}`,
      "Dopo 6 mesi l'abbonamento si rinnova per altri 6 mesi: una settimana prima ti scriveremo per ricordartelo. Puoi disdirlo quando vuoi, senza penali: l'accesso resta attivo fino alla fine del mese già pagato.",
    ],
    action: {
      lead: "Gestisci il tuo abbonamento (disdetta, carta, ricevute):",
      label: "Il mio abbonamento",
      url: httpUrl(manageUrl),
    },
    outro: [],
  });
}

export function subscriptionPostponedMail({
  firstname,
  planName,
  freeUntil,
  monthly,
  manageUrl,
  by,
}: SubscriptionMailBase & {
  freeUntil: string;
  monthly: string;
  manageUrl: string;
  /** Who gave the months: the customer's eBook+EDU code, or the publisher's customer service. */
  by: "activation_code" | "operator";
}): MailContent {
  return compose({
    subject:
      by === "activation_code"
        ? "Il tuo abbonamento EDU: i prossimi mesi sono inclusi nel codice"
        : "Il tuo abbonamento EDU: i prossimi mesi sono un omaggio",
    firstname,
    intro: [
      by === "activation_code"
        ? `hai attivato un codice eBook+EDU mentre il tuo abbonamento ${planName} è in corso: i 6 mesi di EDU del codice prendono il posto delle prossime rate, che non ti addebiteremo.`
        : `il nostro servizio clienti ti ha concesso alcuni mesi di EDU in omaggio mentre il tuo abbonamento ${planName} è in corso: prendono il posto delle prossime rate, che non ti addebiteremo.`,
      `L'accesso a EDU continua senza interruzioni e il prossimo addebito, di ${monthly}, è ${on(freeUntil)}.`,
    ],
    action: { lead: "Gestisci il tuo abbonamento:", label: "Il mio abbonamento", url: httpUrl(manageUrl) },
    outro: [],
  });
}

export function subscriptionRenewalNoticeMail({
  firstname,
  planName,
  monthly,
  renewsOn,
  manageUrl,
}: SubscriptionMailBase & { monthly: string; renewsOn: string; manageUrl: string }): MailContent {
  return compose({
    subject: "Il tuo abbonamento EDU si rinnova tra una settimana",
    firstname,
    intro: [
      `${on(renewsOn)} il tuo abbonamento ${planName} si rinnova per altri 6 mesi, alle stesse condizioni: una rata mensile di ${monthly}, addebitata ogni mese sulla carta che usi ora.`,
      "Se non vuoi rinnovarlo, disdici prima di quella data: non ti sarà addebitato nulla e l'accesso resterà attivo fino alla fine del mese già pagato.",
    ],
    action: { lead: "Per disdire o cambiare carta:", label: "Il mio abbonamento", url: httpUrl(manageUrl) },
    outro: [],
  });
}

export function subscriptionChargeReceiptMail({
  firstname,
  planName,
  instalment,
  amount,
  paidUntil,
  receiptUrl,
}: SubscriptionMailBase & { instalment: string; amount: string; paidUntil: string; receiptUrl: string }): MailContent {
  return compose({
    subject: `Pagamento ricevuto: ${planName}, rata ${instalment}`,
    firstname,
    intro: [
      `abbiamo ricevuto il pagamento di ${amount} per la rata ${instalment} del tuo abbonamento ${planName}.`,
      `Il tuo accesso a EDU è attivo fino ${until(paidUntil)}.`,
    ],
    action: { lead: "La ricevuta è sempre disponibile qui:", label: "Vedi la ricevuta", url: httpUrl(receiptUrl) },
    outro: [],
  });
}

export function subscriptionChargeFailedMail({
  firstname,
  planName,
  amount,
  reason,
  retryOn,
  needsAuthentication = false,
  updateCardUrl,
}: SubscriptionMailBase & {
  amount: string;
  reason: string | null;
  retryOn: string | null;
  /** The bank wants the customer to confirm the charge themselves: they can pay it now from the page. */
  needsAuthentication?: boolean;
  /** The subscription's page, where the customer updates the card or pays now. */
  updateCardUrl: string;
}): MailContent {
  return compose({
    subject: needsAuthentication
      ? "Conferma il pagamento del tuo abbonamento EDU"
      : "Pagamento non riuscito: aggiorna la tua carta",
    firstname,
    intro: [
      `non siamo riusciti ad addebitare ${amount} per il tuo abbonamento ${planName}.${reason ? ` La banca ha risposto: «${reason}».` : ""}`,
      needsAuthentication
        ? "La tua banca chiede che confermi tu il pagamento: apri la pagina del tuo abbonamento e premi «Paga ora»."
        : "",
      retryOn
        ? `Riproveremo ${on(retryOn)}. Nel frattempo l'accesso a EDU è sospeso: aggiorna la carta e il pagamento sarà ritentato subito.`
        : "Era l'ultimo tentativo: l'abbonamento è terminato.",
    ].filter(Boolean),
    action: needsAuthentication
      ? { lead: "Per confermare il pagamento:", label: "Paga ora", url: httpUrl(updateCardUrl) }
      : { lead: "Per aggiornare la carta:", label: "Aggiorna carta", url: httpUrl(updateCardUrl) },
    outro: [],
  });
}

export function subscriptionCancelledMail({
  firstname,
  planName,
  accessUntil,
  manageUrl,
}: SubscriptionMailBase & { accessUntil: string; manageUrl: string }): MailContent {
  return compose({
    subject: "Disdetta del tuo abbonamento EDU confermata",
    firstname,
    intro: [
      `abbiamo ricevuto la disdetta del tuo abbonamento ${planName}: non ti addebiteremo altre rate.`,
      `Il tuo accesso a EDU resta attivo fino ${until(accessUntil)}. Fino ad allora puoi riattivare l'abbonamento quando vuoi.`,
    ],
    action: { lead: "Se cambi idea:", label: "Riattiva l'abbonamento", url: httpUrl(manageUrl) },
    outro: [],
  });
}

export function subscriptionEndedMail({
  firstname,
  planName,
  reason,
  endedOn,
  eduUrl,
}: SubscriptionMailBase & { reason: "cancelled" | "payment_failed"; endedOn: string; eduUrl: string }): MailContent {
  return compose({
    subject: "Il tuo abbonamento EDU è terminato",
    firstname,
    intro: [
      reason === "payment_failed"
        ? `non siamo riusciti ad addebitare la rata del tuo abbonamento ${planName} neppure dopo alcuni tentativi: l'abbonamento è terminato e il tuo accesso a EDU si è concluso ${on(endedOn)}.`
        : `come da tua disdetta, il tuo abbonamento ${planName} è terminato: il tuo accesso a EDU si è concluso ${on(endedOn)}.`,
      "Non ti addebiteremo altro. Le ricevute dei pagamenti restano nella pagina I miei acquisti.",
    ],
    action: { lead: "Puoi abbonarti di nuovo quando vuoi:", label: "Scopri EDU", url: httpUrl(eduUrl) },
    outro: [],
  });
}

type Parts = {
  subject: string;
  firstname: string | null;
  /** Paragraphs after the greeting (the first continues "Gentile …,"). */
  intro: string[];
  action: { lead: string; label: string; url: string };
  outro: string[];
};

function compose({ subject, firstname, intro, action, outro }: Parts): MailContent {
  const greeting = `Gentile ${firstname?.trim() || "cliente"},`;

  const text = [greeting, ...intro, `${action.lead}\n${action.url}`, ...outro, SIGNATURE].join("\n\n") + "\n";

  const p = (content: string) => `<p style="margin:0 0 16px;">${content}</p>`;
  const url = escapeMarkup(action.url);
  const html = `<!DOCTYPE html>
<html lang="it">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeMarkup(subject)}</title>
</head>
<body style="margin:0;padding:0;background-color:${PAPER};">
<div style="max-width:600px;margin:0 auto;padding:24px 16px;font-family:Arial,Helvetica,sans-serif;font-size:16px;line-height:1.5;color:${INK};">
<div style="background-color:${BRAND};color:#ffffff;padding:20px 24px;border-radius:8px 8px 0 0;font-family:Georgia,'Times New Roman',serif;font-size:22px;font-weight:bold;">${SIGNATURE}</div>
<div style="background-color:#ffffff;padding:24px;border:1px solid ${LINE};border-top:0;border-radius:0 0 8px 8px;">
${p(escapeMarkup(greeting))}
${intro.map((paragraph) => p(escapeMarkup(paragraph))).join("\n")}
<p style="margin:24px 0;"><a href="${url}" style="display:inline-block;background-color:${BUTTON};color:#ffffff;text-decoration:none;font-weight:bold;padding:12px 24px;border-radius:6px;">${escapeMarkup(action.label)}</a></p>
${outro.map((paragraph) => p(escapeMarkup(paragraph))).join("\n")}
<p style="margin:0 0 16px;font-size:14px;color:${MUTED};">Se il pulsante non funziona, copia questo indirizzo nella barra del browser:<br><a href="${url}" style="color:${BUTTON};word-break:break-all;">${url}</a></p>
<p style="margin:0;">${SIGNATURE}</p>
</div>
<p style="margin:16px 0 0;font-size:12px;color:${MUTED};text-align:center;">Questa e-mail è stata inviata automaticamente: non rispondere a questo messaggio.</p>
</div>
</body>
</html>
`;
  return { subject, text, html };
}

/** Links in mails are absolute http(s) addresses; anything else is a programming error. */
function httpUrl(link: string): string {
  let url: URL;
  try {
    url = new URL(link);
  } catch {
    throw new TypeError("A mail link must be an absolute http(s) URL");
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw new TypeError("A mail link must be an absolute http(s) URL");
  return link;
}
