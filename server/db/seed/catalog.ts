// The demo catalogue of Novalex Editore: product types and products (books, eBooks, courses,
// journals and the EDU offers). Books are listed in compact tables and expanded into rows.
import { issn, novalexIsbn } from "./identifiers.ts";
import { resolveDate, slugify, type DateSpec, type ProductTypeCode, type SeedLinks } from "./types.ts";

export const PRODUCT_TYPES: ReadonlyArray<{ code: ProductTypeCode; name: string }> = [
  { code: "ebook", name: "eBook" },
  { code: "paper_flex", name: "Libro + eBook" },
  { code: "paper_hard", name: "Libro cartonato" },
  { code: "corso", name: "Corso" },
  { code: "rivista", name: "Rivista" },
  { code: "abbonamento", name: "Abbonamento" },
];

/**
 * What a sale of a product of each type means (docs/payments.md, "Checkout and payments"): the VAT
 * contained in its price (ebooks and journals 4 %, paper books VAT paid at source by the publisher,
 * courses and EDU 22 %, to be confirmed by the publisher's accountant), whether it gives access in
 * the library, and for how long. Migration 0006 writes the same terms on an existing catalogue.
 */
export const COMMERCE_TERMS: Record<
  ProductTypeCode,
  { vatRateBps: number | null; grantsAccess: boolean; accessMonths: number | null }
> = {
  ebook: { vatRateBps: 400, grantsAccess: true, accessMonths: null },
  paper_flex: { vatRateBps: null, grantsAccess: true, accessMonths: null },
  paper_hard: { vatRateBps: null, grantsAccess: false, accessMonths: null },
  corso: { vatRateBps: 2200, grantsAccess: true, accessMonths: 12 },
  rivista: { vatRateBps: 400, grantsAccess: true, accessMonths: 12 },
  abbonamento: { vatRateBps: 2200, grantsAccess: true, accessMonths: 6 },
};

/** One product ready to insert; `key` and `masterKey` are seed-internal references. */
export type ProductSeed = {
  key: string;
  typeCode: ProductTypeCode;
  code: string | null;
  name: string;
  sku: string;
  isbn: string | null;
  issn: string | null;
  ean: string | null;
  shortAuthors: string | null;
  edition: string | null;
  periodicity: string | null;
  description: string;
  pubdate: Date;
  priceCents: number;
  monthlyPriceCents: number | null;
  moodleId: number | null;
  url: string | null;
  masterKey: string | null;
  forStudents: boolean;
  forLegalProfessions: boolean;
  /** False for what is sold only with a printed code (the eBook+EDU manual). */
  sellable?: boolean;
};

/** S = suggested to students and professors, P = to legal professionals, SP = both. */
type Audience = "S" | "P" | "SP";

type BookRow = readonly [
  key: string,
  title: string,
  authors: string,
  edition: string,
  pubdate: DateSpec,
  priceCents: number,
  audience: Audience,
  description: string,
];

// ---------------------------------------------------------------- paper books

/** Paperback with the eBook included ("Libro + eBook"). Title numbers 101-199. */
// prettier-ignore
const PAPER_FLEX: readonly BookRow[] = [
  ["pf01", "Istituzioni di diritto pubblico", "Giorgio Ferraresi, Laura Benvenuti", "XIV edizione", -2, 3200, "S",
    "Il manuale di riferimento per il primo anno di Giurisprudenza: fonti del diritto, forma di governo, organizzazione costituzionale e amministrativa. Aggiornato alle più recenti riforme e alla giurisprudenza della Corte costituzionale."],
  ["pf02", "Manuale di diritto penale. Parte generale", "Paolo Sartori", "IX edizione", -4, 3800, "SP",
    "Principi, struttura del reato, cause di giustificazione, colpevolezza e sistema sanzionatorio, esposti con linguaggio chiaro e con numerosi esempi tratti dalla giurisprudenza di legittimità."],
  ["pf03", "Manuale di diritto amministrativo", "Elena Marchetti, Stefano Galli", "VII edizione", -1, 5400, "SP",
    "Organizzazione amministrativa, procedimento, provvedimento e giustizia amministrativa in un'opera pensata per l'esame universitario e per la preparazione ai concorsi pubblici."],
  ["pf04", "Manuale di diritto privato", "Andrea Colombo, Francesca Rinaldi", "XII edizione", "2025-09-08", 6200, "S",
    "Un'esposizione completa e rigorosa del diritto privato: persone, beni, obbligazioni, contratti, responsabilità civile, famiglia e successioni. Ogni capitolo si chiude con schemi di sintesi e domande di verifica."],
  ["pf05", "Diritto costituzionale", "Marco Bellini", "VIII edizione", "2025-08-25", 4500, "S",
    "Le fonti, i diritti fondamentali, gli organi costituzionali e la giustizia costituzionale, con un'attenzione costante al dibattito sulle riforme istituzionali."],
  ["pf06", "Diritto del lavoro", "Chiara Fontana, Luca Moretti", "VI edizione", "2026-02-16", 4800, "SP",
    "Rapporto di lavoro subordinato e autonomo, diritto sindacale e previdenza sociale, aggiornato alle ultime pronunce della Corte costituzionale in materia di licenziamenti."],
  ["pf07", "Diritto dell'Unione europea", "Silvia Caruso", "V edizione", "2025-10-06", 4200, "S",
    "Istituzioni, fonti e sistema giurisdizionale dell'Unione, con una parte dedicata al mercato interno, alla concorrenza e alla tutela dei diritti fondamentali."],
  ["pf08", "Diritto commerciale", "Roberto Esposito, Anna Ricci", "X edizione", "2025-09-22", 5800, "S",
    "Imprenditore, società, titoli di credito e crisi d'impresa in un manuale che accompagna lo studente dalla teoria ai casi pratici, aggiornato al Codice della crisi d'impresa e dell'insolvenza."],
  ["pf09", "Diritto tributario", "Federico Conti", "IV edizione", "2026-03-09", 4600, "SP",
    "Principi costituzionali, obbligazione tributaria, accertamento e riscossione, con un quadro aggiornato delle principali imposte dopo l'attuazione della delega fiscale."],
  ["pf10", "Diritto processuale civile. I. Principi generali", "Giovanni De Santis", "XI edizione", "2025-11-03", 4400, "S",
    "Il primo volume del corso di procedura civile: giurisdizione, competenza, azione e processo, letti alla luce della riforma del processo civile e dei successivi correttivi."],
  ["pf11", "Procedura penale", "Valentina Greco, Matteo Lombardi", "VIII edizione", "2026-01-19", 5600, "SP",
    "Soggetti, atti, prove, indagini preliminari, procedimenti speciali e impugnazioni in un manuale completo, aggiornato alla riforma della giustizia penale."],
  ["pf12", "Diritto internazionale", "Alessandra Villa", "III edizione", "2024-09-16", 3900, "S",
    "Soggetti, fonti e responsabilità nel diritto internazionale, con capitoli dedicati all'uso della forza, alla tutela internazionale dei diritti umani e al diritto del mare."],
  ["pf13", "Diritto di famiglia e delle successioni", "Carla Mancini", "II edizione", "2025-04-14", 4900, "P",
    "Matrimonio, unioni civili, filiazione, crisi della coppia e successioni, con formule e casi pratici per l'avvocato familiarista e per il notaio."],
  ["pf14", "La responsabilità civile. Casi e questioni", "Davide Pellegrini", "I edizione", "2026-11-16", 5200, "P",
    "Danno patrimoniale e non patrimoniale, responsabilità medica e da prodotto, criteri di liquidazione: le questioni più discusse, risolte attraverso la giurisprudenza più recente."],
  ["pf15", "Il processo tributario", "Federico Conti, Irene Barbieri", "III edizione", "2024-05-20", 4700, "P",
    "Una guida operativa al contenzioso tributario, dal ricorso introduttivo al giudizio di Cassazione, con formulari e check-list per il difensore."],
  ["pf16", "Compendio di diritto penale. Parte speciale", "Paolo Sartori", "V edizione", "2024-10-07", 2900, "S",
    "I delitti contro la persona, il patrimonio e la pubblica amministrazione in forma sintetica, con tabelle riepilogative ideali per il ripasso prima dell'esame."],
  ["pf17", "Privacy e protezione dei dati personali", "Giulia Ferri", "II edizione", "2025-06-09", 4400, "P",
    "Il GDPR e il Codice privacy spiegati a professionisti e DPO: basi giuridiche, diritti dell'interessato, sicurezza, trasferimenti all'estero e poteri del Garante."],
];

/** Hardcover ("Libro cartonato"): codes, commentaries, treatises. Title numbers 201-299. */
// prettier-ignore
const PAPER_HARD: readonly BookRow[] = [
  ["ph01", "Codice civile commentato", "a cura di Andrea Colombo", "IV edizione", -3, 6900, "P",
    "Il codice civile articolo per articolo, con commento dottrinale, rassegna della giurisprudenza di legittimità e richiami alla legislazione complementare."],
  ["ph02", "Codice penale commentato", "a cura di Paolo Sartori, Valentina Greco", "III edizione", "2025-12-01", 8500, "P",
    "Ogni articolo del codice penale e delle principali leggi speciali accompagnato da un commento puntuale e dalle massime delle Sezioni Unite."],
  ["ph03", "Codice di procedura civile commentato", "a cura di Giovanni De Santis", "III edizione", "2026-04-13", 8900, "P",
    "Il codice di rito aggiornato ai decreti correttivi, con commento sistematico, orientamenti giurisprudenziali e indicazioni pratiche per il contenzioso."],
  ["ph04", "Trattato di diritto delle società. I. Società di persone e società per azioni", "diretto da Roberto Esposito", "I edizione", "2024-11-18", 9000, "P",
    "Il primo volume di un'opera sistematica dedicata al diritto societario: costituzione, governance, conferimenti e operazioni straordinarie."],
  ["ph05", "Commentario al Codice della crisi d'impresa e dell'insolvenza", "a cura di Marta Bianchi, Enrico Ferrara", "II edizione", "2025-03-10", 8800, "P",
    "Un commento completo al Codice della crisi, dalla composizione negoziata alla liquidazione giudiziale, aggiornato agli ultimi decreti correttivi."],
  ["ph06", "Codice del lavoro commentato", "a cura di Chiara Fontana", "II edizione", "2026-06-22", 7900, "P",
    "Statuto dei lavoratori, tipologie contrattuali, licenziamenti e sicurezza sul lavoro commentati con taglio pratico per avvocati e consulenti del lavoro."],
  ["ph07", "Codice dell'ambiente", "a cura di Tommaso Rizzo", "I edizione", "2024-02-26", 6500, "P",
    "Il d.lgs. 152/2006 annotato con la giurisprudenza amministrativa e penale in materia di rifiuti, scarichi, emissioni e valutazioni ambientali."],
  ["ph08", "Storia del diritto romano", "Umberto Testa", "VI edizione", "2024-09-02", 4300, "S",
    "Dalle origini di Roma alla compilazione giustinianea: istituzioni politiche, fonti del diritto e giurisprudenza romana in un racconto chiaro e documentato."],
  ["ph09", "Lineamenti di filosofia del diritto", "Beatrice Leone", "III edizione", "2025-01-27", 3400, "S",
    "I grandi temi della riflessione filosofico-giuridica, dal giusnaturalismo al positivismo, fino alle sfide poste dalle nuove tecnologie."],
  ["ph10", "Codice dei contratti pubblici annotato", "a cura di Elena Marchetti", "II edizione", "2025-07-07", 7400, "P",
    "Il d.lgs. 36/2023 annotato con le pronunce del Consiglio di Stato, i pareri dell'ANAC e i riferimenti alle direttive europee."],
  ["ph11", "Codice tributario", "a cura di Federico Conti", "V edizione", 12, 7200, "P",
    "Le principali leggi d'imposta, lo Statuto dei diritti del contribuente e le norme sul processo tributario in un unico volume aggiornato."],
];

// ---------------------------------------------------------------- eBooks

/** Paper books that also exist as a stand-alone eBook (the eBook's master product). */
// prettier-ignore
const EBOOK_EDITIONS_OF: readonly string[] = [
  "pf01", "pf02", "pf03", "pf04", "pf05", "pf06", "pf07", "pf08", "pf09", "pf10",
  "pf11", "pf12", "pf13", "pf14", "pf15", "pf16", "pf17", "ph01", "ph02", "ph08",
];

const EBOOK_NOTES = [
  "Edizione digitale con ricerca nel testo, evidenziazioni e note personali.",
  "Nella versione eBook, rinvii ipertestuali alle norme e alle sentenze citate.",
  "La versione digitale si legge dal browser, su computer, tablet e smartphone.",
];

/** eBook-only titles. Title numbers 321-399 (301-320 are the digital editions). */
// prettier-ignore
const EBOOK_ONLY: readonly BookRow[] = [
  ["eb01", "Guida all'esame di avvocato", "Luca Moretti, Sara Gentile", "Edizione 2026", "2026-05-11", 2490, "SP",
    "Pareri e atti svolti di diritto civile, penale e amministrativo, con tracce ufficiali commentate e indicazioni di metodo per la prova scritta e per l'orale."],
  ["eb02", "La riforma del processo civile. Prime applicazioni", "Giovanni De Santis", "I edizione", "2024-03-18", 1990, "P",
    "Le novità del rito ordinario, del procedimento semplificato e del rito del lavoro alla prova delle prime pronunce di merito e di legittimità."],
  ["eb03", "Il licenziamento dopo la Corte costituzionale", "Chiara Fontana", "I edizione", "2025-02-10", 1490, "P",
    "Tutele crescenti, reintegrazione e indennità risarcitoria: come cambia la disciplina del licenziamento dopo le sentenze della Consulta."],
  ["eb04", "Intelligenza artificiale e diritto. L'AI Act spiegato", "Giulia Ferri, Nicola Sala", "I edizione", -5, 2290, "SP",
    "Il regolamento europeo sull'intelligenza artificiale letto articolo per articolo: classificazione dei rischi, obblighi di fornitori e utilizzatori, sanzioni."],
  ["eb05", "Lavoro agile e smart working", "Luca Moretti", "II edizione", "2024-06-17", 1290, "P",
    "Accordo individuale, diritto alla disconnessione, sicurezza e controlli a distanza: una guida pratica per aziende e consulenti del lavoro."],
  ["eb06", "La mediazione civile e commerciale", "Irene Barbieri", "II edizione", "2025-05-19", 1690, "P",
    "Procedimento, condizioni di procedibilità, ruolo dell'avvocato e benefici fiscali dopo la riforma della mediazione."],
  ["eb07", "Il danno non patrimoniale. Tabelle e liquidazione", "Davide Pellegrini", "III edizione", "2026-09-14", 1890, "P",
    "Danno biologico, morale e da perdita del rapporto parentale: criteri di liquidazione, tabelle dei tribunali e casistica aggiornata."],
  ["eb08", "Il condominio. Guida pratica", "Tommaso Rizzo", "IV edizione", "2024-11-04", 1490, "P",
    "Assemblea, amministratore, ripartizione delle spese e contenzioso condominiale spiegati con esempi e modelli di delibera."],
  ["eb09", "Diritto penale dell'economia", "Matteo Lombardi", "I edizione", "2025-10-27", 2790, "SP",
    "Reati societari, tributari e fallimentari e responsabilità degli enti ai sensi del d.lgs. 231/2001 in un quadro organico e aggiornato."],
  ["eb10", "Il nuovo Codice dei contratti pubblici", "Elena Marchetti, Stefano Galli", "I edizione", "2024-01-22", 1990, "P",
    "Principi, digitalizzazione degli appalti, affidamenti sotto soglia ed esecuzione del contratto: le novità del d.lgs. 36/2023 spiegate in modo operativo."],
  ["eb11", "Schemi di diritto civile", "Francesca Rinaldi", "III edizione", "2026-07-06", 1290, "S",
    "Tavole sinottiche e mappe concettuali per ripassare in poco tempo l'intero programma di diritto privato."],
  ["eb12", "Schemi di diritto costituzionale", "Marco Bellini", "II edizione", "2026-08-31", 1190, "S",
    "Le fonti, gli organi costituzionali e i diritti fondamentali riassunti in schemi chiari, pensati per il ripasso prima dell'esame."],
  ["eb13", "Quiz commentati per il concorso in magistratura", "Sara Gentile", "I edizione", 35, 2490, "S",
    "Oltre mille quesiti di diritto civile, penale e amministrativo con soluzione commentata e rinvii alla giurisprudenza."],
  ["eb14", "Diritto e nuove tecnologie", "Nicola Sala", "I edizione", "2026-11-19", 2190, "S",
    "Piattaforme digitali, contratti telematici, blockchain e tutela dei dati: un'introduzione per i corsi di laurea in diritto delle nuove tecnologie."],
];

// ---------------------------------------------------------------- courses

type CourseRow = readonly [
  moodleId: number,
  title: string,
  teachers: string,
  edition: string,
  start: DateSpec,
  priceCents: number,
  audience: Audience,
  description: string,
];

// prettier-ignore
const COURSES: readonly CourseRow[] = [
  [2101, "Corso di preparazione all'esame di avvocato", "Luca Moretti, Sara Gentile", "Edizione 2027", "2026-10-05", 89000, "SP",
    "Lezioni in aula e in streaming, simulazioni della prova scritta con correzione individuale e preparazione all'esame orale."],
  [2102, "Corso di preparazione al concorso in magistratura", "Paolo Sartori, Elena Marchetti, Andrea Colombo", "Edizione 2026-2027", "2026-09-21", 149000, "S",
    "Un percorso annuale di diritto civile, penale e amministrativo con temi svolti, correzioni personalizzate e incontri con magistrati."],
  [2103, "Corso intensivo di diritto amministrativo per concorsi pubblici", "Elena Marchetti", "Edizione 2026", "2026-03-02", 39000, "SP",
    "Dieci settimane di lezioni e test a risposta multipla sui temi più ricorrenti nei bandi per funzionari e dirigenti pubblici."],
  [2104, "Il processo civile dopo la riforma", "Giovanni De Santis", "Edizione 2026", "2026-01-26", 24000, "P",
    "Corso di formazione continua per avvocati in otto moduli sul nuovo rito ordinario, sul procedimento semplificato e sulle impugnazioni."],
  [2105, "Compliance 231 e modelli organizzativi", "Matteo Lombardi, Marta Bianchi", "Edizione 2026", "2026-04-20", 32000, "P",
    "Come progettare, aggiornare e difendere in giudizio un modello organizzativo ai sensi del d.lgs. 231/2001, con esercitazioni su casi reali."],
  [2106, "Data Protection Officer: corso di specializzazione", "Giulia Ferri", "III edizione", "2025-10-13", 59000, "P",
    "Un percorso completo per chi ricopre o vuole ricoprire il ruolo di DPO: registri dei trattamenti, valutazioni d'impatto, gestione dei data breach."],
  [2107, "Il contenzioso tributario", "Federico Conti, Irene Barbieri", "Edizione 2026", "2026-05-18", 28000, "P",
    "Strategie difensive e redazione degli atti nel processo tributario, dal ricorso al giudizio di legittimità."],
  [2108, "Crisi d'impresa e composizione negoziata", "Enrico Ferrara", "Edizione 2025", "2025-11-10", 29000, "P",
    "Strumenti di allerta, composizione negoziata e concordato preventivo spiegati da chi li applica ogni giorno."],
  [2109, "La riforma del processo di famiglia", "Carla Mancini", "Edizione 2026", "2026-02-09", 19000, "P",
    "Il rito unificato in materia di persone, minorenni e famiglie: atti introduttivi, provvedimenti provvisori e ascolto del minore."],
  [2110, "Appalti pubblici: il nuovo Codice in pratica", "Stefano Galli", "Edizione 2026", "2026-06-08", 26000, "P",
    "Programmazione, gara ed esecuzione dei contratti pubblici alla luce del d.lgs. 36/2023 e della digitalizzazione degli appalti."],
  [2111, "Laboratorio di scrittura giuridica", "Beatrice Leone", "Edizione 2026", 20, 14900, "S",
    "Come scrivere una tesi, un parere o un atto in modo chiaro ed efficace: esercitazioni guidate con revisione dei testi."],
  [2112, "Preparazione all'esame di Diritto privato", "Francesca Rinaldi", "Edizione 2026", "2026-09-07", 9900, "S",
    "Lezioni registrate, mappe concettuali e simulazioni d'esame per affrontare con sicurezza l'esame di Istituzioni di diritto privato."],
  [2113, "Aggiornamento annuale in diritto del lavoro", "Chiara Fontana, Luca Moretti", "Edizione 2026", "2026-11-09", 21000, "P",
    "Novità normative e giurisprudenziali dell'anno per avvocati giuslavoristi e consulenti del lavoro, in dieci incontri in diretta."],
];

// ---------------------------------------------------------------- journals

type JournalRow = readonly [
  title: string,
  directors: string,
  periodicity: "Mensile" | "Bimestrale" | "Trimestrale",
  lastIssue: DateSpec,
  annualPriceCents: number,
  audience: Audience,
  description: string,
];

// prettier-ignore
const JOURNALS: readonly JournalRow[] = [
  ["Rivista di diritto civile e commerciale", "Diretta da Andrea Colombo", "Bimestrale", "2026-10-30", 18000, "P",
    "Saggi, note a sentenza e osservatori di giurisprudenza sui temi del diritto delle obbligazioni, dei contratti e dell'impresa."],
  ["Giurisprudenza penale contemporanea", "Diretta da Paolo Sartori", "Mensile", -3, 21000, "P",
    "Ogni mese le decisioni più rilevanti della Cassazione e della Corte costituzionale in materia penale, commentate da magistrati e avvocati."],
  ["Lavoro e relazioni industriali", "Diretta da Chiara Fontana", "Trimestrale", "2026-09-30", 12000, "P",
    "Studi e commenti su rapporto di lavoro, contrattazione collettiva e welfare aziendale."],
  ["Rivista italiana di diritto pubblico", "Diretta da Marco Bellini, Giorgio Ferraresi", "Trimestrale", "2026-09-15", 14000, "SP",
    "La rivista di riferimento per il diritto costituzionale e amministrativo, con una sezione dedicata ai giovani studiosi."],
  ["Diritto e fisco", "Diretta da Federico Conti", "Mensile", "2026-11-02", 19500, "P",
    "Novità normative, prassi dell'Agenzia delle Entrate e giurisprudenza tributaria commentate per commercialisti e avvocati tributaristi."],
  ["Quaderni di diritto dell'Unione europea", "Diretta da Silvia Caruso", "Trimestrale", "2026-06-30", 9500, "SP",
    "Analisi delle sentenze della Corte di giustizia e degli sviluppi normativi dell'Unione, con contributi in italiano e in inglese."],
  ["Rivista di diritto processuale civile", "Diretta da Giovanni De Santis", "Bimestrale", "2026-10-15", 16500, "P",
    "Dottrina e giurisprudenza sul processo civile, sull'esecuzione forzata e sugli strumenti alternativi di risoluzione delle controversie."],
  ["Famiglia, persone e successioni", "Diretta da Carla Mancini", "Mensile", "2026-11-05", 17000, "P",
    "Il punto sulle questioni di diritto di famiglia, tutela dei minori e successioni, con formule e casi risolti."],
  ["Appalti e contratti pubblici", "Diretta da Elena Marchetti", "Bimestrale", "2026-08-31", 15500, "P",
    "Commenti, pareri e giurisprudenza sui contratti pubblici per funzionari, RUP, imprese e avvocati amministrativisti."],
  ["Società e crisi d'impresa", "Diretta da Roberto Esposito, Marta Bianchi", "Trimestrale", "2026-07-31", 16000, "P",
    "Governance societaria, operazioni straordinarie e procedure concorsuali nella prospettiva del professionista."],
  ["Diritto digitale e privacy", "Diretta da Giulia Ferri", "Bimestrale", "2026-10-01", 13000, "P",
    "Protezione dei dati, intelligenza artificiale, piattaforme digitali e cybersicurezza: il diritto delle nuove tecnologie in pratica."],
];

// ---------------------------------------------------------------- builders

const audienceFlags = (a: Audience) => ({ forStudents: a !== "P", forLegalProfessions: a !== "S" });

/** The eBook price of a paper book: about 70% of it, ending in ,90. */
function ebookPrice(paperCents: number): number {
  return Math.round((paperCents * 0.7) / 100) * 100 - 10;
}

function base(key: string, typeCode: ProductTypeCode, name: string, sku: string) {
  return {
    key,
    typeCode,
    code: null,
    name,
    sku,
    isbn: null,
    issn: null,
    ean: null,
    shortAuthors: null,
    edition: null,
    periodicity: null,
    monthlyPriceCents: null,
    moodleId: null,
    url: null,
    masterKey: null,
  } satisfies Partial<ProductSeed>;
}

function paperBooks(
  rows: readonly BookRow[],
  typeCode: "paper_flex" | "paper_hard",
  firstNumber: number,
  now: Date,
): ProductSeed[] {
  return rows.map(([key, title, authors, edition, pubdate, priceCents, audience, description], i) => {
    const isbn = novalexIsbn(firstNumber + i);
    return {
      ...base(key, typeCode, title, `${typeCode === "paper_flex" ? "LB" : "LC"}-${isbn}`),
      isbn,
      ean: isbn,
      shortAuthors: authors,
      edition,
      description,
      pubdate: resolveDate(pubdate, now),
      priceCents,
      ...audienceFlags(audience),
    };
  });
}

/**
 * Builds the whole catalogue. `now` anchors the relative publication dates; journal and course
 * links point to the configured sites.
 */
export function buildProducts(links: SeedLinks, now: Date): ProductSeed[] {
  const flex = paperBooks(PAPER_FLEX, "paper_flex", 101, now);
  const hard = paperBooks(PAPER_HARD, "paper_hard", 201, now);
  const paperByKey = new Map([...flex, ...hard].map((p) => [p.key, p]));

  const digitalEditions: ProductSeed[] = EBOOK_EDITIONS_OF.map((masterKey, i) => {
    const master = paperByKey.get(masterKey);
    if (!master) throw new Error(`Unknown paper book ${masterKey}`);
    const isbn = novalexIsbn(301 + i);
    return {
      ...master,
      ...base(`${masterKey}-eb`, "ebook", master.name, `EB-${isbn}`),
      isbn,
      shortAuthors: master.shortAuthors,
      edition: master.edition,
      description: `${master.description} ${EBOOK_NOTES[i % EBOOK_NOTES.length]}`,
      priceCents: ebookPrice(master.priceCents),
      masterKey,
    };
  });

  const ebookOnly: ProductSeed[] = EBOOK_ONLY.map(
    ([key, title, authors, edition, pubdate, priceCents, audience, description], i) => {
      const isbn = novalexIsbn(321 + i);
      return {
        ...base(key, "ebook", title, `EB-${isbn}`),
        isbn,
        shortAuthors: authors,
        edition,
        description,
        pubdate: resolveDate(pubdate, now),
        priceCents,
        ...audienceFlags(audience),
      };
    },
  );

  const courses: ProductSeed[] = COURSES.map(
    ([moodleId, title, teachers, edition, start, priceCents, audience, description]) => ({
      ...base(`co${moodleId}`, "corso", title, `CO-${moodleId}`),
      shortAuthors: teachers,
      edition,
      description,
      pubdate: resolveDate(start, now),
      priceCents,
      moodleId,
      url: `${links.coursePlatform}/course/view.php?id=${moodleId}`,
      ...audienceFlags(audience),
    }),
  );

  const journals: ProductSeed[] = JOURNALS.map(
    ([title, directors, periodicity, lastIssue, priceCents, audience, description], i) => {
      const code = issn(`2784${String(101 + i * 7).padStart(3, "0")}`);
      return {
        ...base(`rv${String(i + 1).padStart(2, "0")}`, "rivista", title, `RV-${code.replace("-", "")}`),
        issn: code,
        shortAuthors: directors,
        periodicity,
        description,
        pubdate: resolveDate(lastIssue, now),
        priceCents,
        url: `${links.mainSite}/riviste/${slugify(title)}`,
        ...audienceFlags(audience),
      };
    },
  );

  const eduOffers: ProductSeed[] = [
    {
      ...base("edu", "abbonamento", "EDU - Abbonamento 6 mesi", "EDU-6M"),
      code: "abbonamentoedu",
      description:
        "Accesso illimitato a tutte le materie EDU, con quiz e test di autovalutazione, mappe concettuali, casi pratici e glossari. Sei mesi a 4,50 €/mese (promo -50%), rinnovo automatico, disdici quando vuoi.",
      pubdate: resolveDate("2026-09-01", now),
      priceCents: 6 * 450,
      monthlyPriceCents: 450,
      url: links.eduPlatform,
      forStudents: true,
      forLegalProfessions: false,
    },
    {
      ...base("ebookedu", "paper_flex", "eBook+EDU", "EBOOKEDU-6M"),
      code: "ebookedu",
      sellable: false,
      shortAuthors: "Manuali Novalex con bollino eBook+EDU",
      description:
        "Il manuale universitario con il bollino eBook+EDU in copertina: con il codice stampato nel libro ottieni l'eBook gratuito e 6 mesi di accesso a EDU.",
      pubdate: resolveDate("2026-09-01", now),
      priceCents: 4500,
      forStudents: true,
      forLegalProfessions: false,
    },
  ];

  return [...flex, ...hard, ...digitalEditions, ...ebookOnly, ...courses, ...journals, ...eduOffers];
}
