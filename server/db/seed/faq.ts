// FAQ of the help centre and of the EDU page. Answers: paragraphs separated by a blank line;
// lines starting with "- " form a bulleted list.

export type FaqSeed = {
  page: "help-center" | "edu";
  section: string;
  position: number;
  question: string;
  answer: string;
};

type FaqRow = readonly [section: string, question: string, answer: readonly string[]];

/** Joins answer blocks with blank lines. */
const answer = (blocks: readonly string[]) => blocks.join("\n\n");
/** A bulleted list block. */
const list = (...items: string[]) => items.map((i) => `- ${i}`).join("\n");

const HELP_CENTER: readonly FaqRow[] = [
  // Account e accesso
  [
    "Account e accesso",
    "Come creo un account?",
    [
      "Clicca su «Accedi» in alto a destra e scegli «Crea il tuo account». Inserisci nome, cognome, email e una password, accetta le condizioni del servizio e conferma con «Crea account».",
      "Al primo accesso ti chiederemo di completare il profilo indicando se sei studente, docente o professionista: in questo modo potremo suggerirti i contenuti più adatti a te.",
    ],
  ],
  [
    "Account e accesso",
    "Ho dimenticato la password: come posso recuperarla?",
    [
      "Vai alla pagina «Password dimenticata», inserisci l'indirizzo email con cui ti sei registrato e premi «Invia». Riceverai un messaggio con un link per impostare una nuova password; se non lo trovi, controlla la cartella della posta indesiderata oppure usa il link «Rinvia».",
      "Il link ha una validità limitata: se è scaduto, richiedine uno nuovo. La nuova password deve contenere:",
      list(
        "almeno 8 caratteri",
        "almeno una lettera maiuscola e una minuscola",
        "almeno un numero",
        "almeno un carattere speciale tra ! # $ % & @ ? -",
      ),
    ],
  ],
  [
    "Account e accesso",
    "Come modifico i miei dati o il consenso alle comunicazioni?",
    [
      "Dal menu utente apri «Il mio account» per aggiornare nome, cognome, email, cellulare e dati di studio. Nella sezione «Preferenze» puoi gestire il consenso alle comunicazioni commerciali e le impostazioni sulla privacy.",
      "La professione indicata al primo accesso non può essere modificata: se hai bisogno di cambiarla, contatta l'Assistenza clienti.",
    ],
  ],
  [
    "Account e accesso",
    "Come posso cancellare il mio account?",
    [
      "Apri «Preferenze» dal menu utente e segui il link per la cancellazione dell'account. Dopo la conferma perderai l'accesso a tutti i prodotti digitali attivati: l'operazione non è reversibile.",
    ],
  ],
  // Attivazione prodotti
  [
    "Attivazione prodotti",
    "Come attivo il codice stampato nel libro?",
    [
      "Il codice di attivazione si trova all'interno del volume. Per attivarlo:",
      list(
        "accedi con il tuo account (o registrati, se non l'hai ancora fatto)",
        "clicca su «Inserisci codice» nella barra in alto",
        "digita il codice esattamente come è stampato e premi «Conferma»",
      ),
      "Il prodotto compare subito nella tua dashboard, pronto per la lettura.",
    ],
  ],
  [
    "Attivazione prodotti",
    "Quanto dura l'accesso ai contenuti digitali del libro?",
    [
      "L'accesso gratuito alla versione digitale e ai contenuti aggiuntivi dura 6 mesi a partire dal giorno in cui inserisci il codice, non dalla data di acquisto del libro.",
      "Nella dashboard, sotto ogni prodotto, trovi la data di scadenza nel formato «Accedi fino al gg/mm/aaaa». Alla scadenza puoi acquistare di nuovo l'accesso digitale.",
    ],
  ],
  [
    "Attivazione prodotti",
    "Il codice risulta non valido: cosa posso fare?",
    [
      "Controlla di averlo digitato senza spazi e di non aver confuso caratteri simili, come la lettera O e il numero 0. Ogni codice può essere attivato una sola volta.",
      "Se il problema persiste, scrivi all'Assistenza clienti indicando il codice e l'ISBN del volume, che trovi sul retro di copertina.",
    ],
  ],
  // eBook e lettura
  [
    "eBook e lettura",
    "Quali browser posso usare per leggere gli eBook?",
    [
      "Gli eBook si leggono direttamente nel browser, senza installare nessuna app. Sono supportate le versioni aggiornate di:",
      list("Chrome", "Edge", "Firefox", "Safari"),
      "Puoi leggere da computer, tablet e smartphone: il segnalibro ricorda dove eri rimasto su tutti i dispositivi.",
    ],
  ],
  [
    "eBook e lettura",
    "Cosa sono i contenuti aggiuntivi?",
    [
      "Molti volumi sono accompagnati da materiali online: aggiornamenti normativi, sentenze integrali, schemi, formulari e test di verifica. Li trovi nella dashboard, alla voce «Contenuti aggiuntivi» del prodotto.",
    ],
  ],
  [
    "eBook e lettura",
    "Dove trovo i corsi e le riviste che ho acquistato?",
    [
      "Corsi e riviste compaiono nella dashboard insieme ai libri: usa i filtri «Corsi» e «Riviste» per trovarli. Il pulsante «Accedi al corso» apre la piattaforma dei corsi, mentre «Vai alla rivista» apre l'ultimo fascicolo online.",
    ],
  ],
  // Acquisti e pagamenti
  [
    "Acquisti e pagamenti",
    "Quali metodi di pagamento accettate?",
    [
      "Gli acquisti sul portale si completano con carta di credito o di debito. Il pagamento è gestito da un fornitore certificato: i dati della carta non vengono mai salvati sui nostri sistemi.",
      "Sul nostro shop i libri possono essere acquistati anche con la Carta del Docente, la Carta della cultura e la Carta del merito.",
    ],
  ],
  [
    "Acquisti e pagamenti",
    "Dove trovo la ricevuta di un acquisto?",
    [
      "Apri «I miei acquisti» dal menu utente: accanto a ogni ordine trovi il pulsante «Ricevuta», che ti permette di stamparla o di salvarla in PDF. Nello «Storico acquisti» sono riportati numero d'ordine, metodo di pagamento, data e importo.",
    ],
  ],
  [
    "Acquisti e pagamenti",
    "Come disdico l'abbonamento EDU?",
    [
      "L'abbonamento EDU dura 6 mesi, con addebito mensile di 4,50 €, e al termine si rinnova automaticamente. Puoi disdirlo quando vuoi scrivendo all'Assistenza clienti dalla pagina Contattaci.",
      "Dopo la disdetta non ti verranno addebitate altre mensilità e continuerai ad accedere a EDU fino alla fine del periodo già pagato.",
    ],
  ],
  [
    "Acquisti e pagamenti",
    "Quali sono i tempi di consegna dei libri cartacei?",
    ["La consegna è gratuita e avviene in 48 ore lavorative dalla conferma dell'ordine."],
  ],
];

const EDU: readonly FaqRow[] = [
  [
    "EDU",
    "Che cos'è EDU?",
    [
      "EDU è la piattaforma di studio di Novalex Editore pensata per gli studenti di Giurisprudenza. L'abbonamento ti dà accesso illimitato a:",
      list("tutte le materie EDU", "quiz e test di autovalutazione", "mappe concettuali", "casi pratici", "glossari"),
    ],
  ],
  [
    "EDU",
    "Quali metodi di pagamento posso usare?",
    [
      "L'abbonamento EDU si paga con carta di credito o di debito: l'importo mensile viene addebitato automaticamente sulla carta che indichi al momento dell'acquisto.",
      "Per l'acquisto dei libri sul nostro shop puoi usare anche la Carta del Docente, la Carta della cultura (ex 18app) e la Carta del merito.",
    ],
  ],
  [
    "EDU",
    "Come funziona l'accesso?",
    [
      "L'abbonamento dura 6 mesi al prezzo promozionale di 4,50 €/mese (sconto del 50%), addebitati ogni mese. L'accesso è attivo subito dopo il pagamento.",
      list("rinnovo automatico dopo 6 mesi", "disdici quando vuoi, senza penali", "accesso da computer, tablet e smartphone"),
    ],
  ],
  [
    "EDU",
    "Quali materie sono incluse?",
    [
      "L'abbonamento comprende tutte le materie EDU:",
      list(
        "Diritto pubblico",
        "Diritto costituzionale",
        "Diritto privato",
        "Diritto penale",
        "Diritto del lavoro",
        "Diritto amministrativo",
        "Diritto dell'Unione europea",
        "Diritto commerciale",
        "Diritto tributario",
      ),
    ],
  ],
  [
    "EDU",
    "Che cos'è l'offerta eBook+EDU?",
    [
      "È un manuale universitario con il bollino eBook+EDU in copertina. Inserendo il codice di attivazione stampato nel libro ottieni l'eBook gratuito e 6 mesi di accesso a EDU.",
      "I 6 mesi decorrono dal giorno in cui inserisci il codice.",
    ],
  ],
  [
    "EDU",
    "Sono un docente: posso usare EDU con i miei studenti?",
    [
      "Sì. I docenti che desiderano accedere alla piattaforma per valutarla o proporla ai propri corsi possono scrivere all'ufficio vendite: trovi l'indirizzo nella pagina EDU e nella sezione Contattaci del nostro sito.",
    ],
  ],
];

function toSeeds(page: FaqSeed["page"], rows: readonly FaqRow[]): FaqSeed[] {
  return rows.map(([section, question, blocks], i) => ({ page, section, position: i + 1, question, answer: answer(blocks) }));
}

export const FAQ_ENTRIES: readonly FaqSeed[] = [...toSeeds("help-center", HELP_CENTER), ...toSeeds("edu", EDU)];
