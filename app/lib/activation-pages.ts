import type { ACTIVATION_PROMPT_PATHS } from "#shared/links.ts";

type ActivationPath = (typeof ACTIVATION_PROMPT_PATHS)[number];

/** What each activation prompt page says (the five addresses printed in books and e-mails). */
const ACTIVATION_PAGES: Record<ActivationPath, { title: string; text: string }> = {
  "/attivaprodotto": {
    title: "Attiva il tuo prodotto",
    text: "Hai un codice di attivazione stampato nel libro o ricevuto per e-mail? Inseriscilo nella tua area personale: eBook, contenuti aggiuntivi, corsi e riviste compariranno subito nella tua dashboard.",
  },
  "/attivaomaggio": {
    title: "Attiva il tuo omaggio",
    text: "Il codice che hai ricevuto ti dà accesso gratuito a un prodotto digitale. Accedi o registrati, poi inserisci il codice per attivarlo.",
  },
  "/attivaebook": {
    title: "Attiva il tuo eBook",
    text: "Con il codice stampato all'interno del libro hai accesso gratuito all'eBook per 6 mesi dalla data di inserimento del codice.",
  },
  "/attivaebookedu": {
    title: "Attiva eBook + EDU",
    text: "Il manuale con il bollino eBook+EDU include l'eBook in omaggio e 6 mesi di EDU, la piattaforma di studio con quiz, mappe concettuali, casi pratici e glossari.",
  },
  "/attivadaecomm": {
    title: "Attiva il prodotto acquistato online",
    text: "Hai acquistato un prodotto sul nostro negozio online? Inserisci il codice che trovi nell'e-mail di conferma dell'ordine per attivarlo.",
  },
};

export function activationPageFor(pathname: string) {
  const key = (pathname.replace(/\/+$/, "") || "/") as ActivationPath;
  return ACTIVATION_PAGES[key] ?? ACTIVATION_PAGES["/attivaprodotto"];
}
