// The chapters of the demo eBooks, read in the built-in reader. The catalogue has no real texts,
// so each readable product gets 5–8 chapters whose titles follow its subject (recognised from
// keywords of its title) and whose paragraphs are textbook prose built around the chapter title.
// Everything is derived from the product's sku and name: the same product always gets the same
// chapters, so the seed stays idempotent.

export type ChapterSeed = { position: number; title: string; body: string };

type Subject = {
  /** Lower-case fragments of a product title that select this subject; the first match wins. */
  keywords: readonly string[];
  /** The subject with its preposition, as the prose uses it: "del diritto penale". */
  of: string;
  /** Eight chapter titles in textbook order; a product takes the first 5–8. */
  chapters: readonly [string, string, string, string, string, string, string, string];
};

// Order matters: specific subjects come before the broader ones their titles also mention
// ("Il licenziamento dopo la Corte costituzionale" is labour law, not constitutional law).
// prettier-ignore
const SUBJECTS: readonly Subject[] = [
  { keywords: ["procedura penale", "processuale penale"], of: "della procedura penale", chapters: [
    "Principi costituzionali e fonti del processo penale", "I soggetti del procedimento", "Gli atti processuali e le notificazioni",
    "Le prove e il contraddittorio", "Le misure cautelari personali e reali", "Le indagini preliminari e l'udienza preliminare",
    "I procedimenti speciali", "Le impugnazioni e il giudicato"] },
  { keywords: ["parte speciale"], of: "del diritto penale", chapters: [
    "I delitti contro la vita e l'incolumità individuale", "I delitti contro la libertà personale e morale", "I delitti contro l'onore e la riservatezza",
    "I delitti contro il patrimonio mediante violenza", "I delitti contro il patrimonio mediante frode", "I delitti dei pubblici ufficiali contro la pubblica amministrazione",
    "I delitti contro l'amministrazione della giustizia", "I delitti contro la fede pubblica"] },
  { keywords: ["penale"], of: "del diritto penale", chapters: [
    "Il principio di legalità e le fonti del diritto penale", "La struttura del reato", "Il fatto tipico e il nesso di causalità",
    "L'antigiuridicità e le cause di giustificazione", "La colpevolezza: dolo e colpa", "Il tentativo e il concorso di persone nel reato",
    "Le circostanze del reato", "Il sistema sanzionatorio e le misure di sicurezza"] },
  { keywords: ["lavoro", "licenziamento", "smart working"], of: "del diritto del lavoro", chapters: [
    "Le fonti del diritto del lavoro", "Il contratto di lavoro subordinato", "Lavoro autonomo, parasubordinato e agile",
    "La retribuzione e l'orario di lavoro", "I poteri del datore di lavoro", "La sospensione del rapporto di lavoro",
    "Il licenziamento individuale e collettivo", "Il diritto sindacale e lo sciopero"] },
  { keywords: ["processo civile", "processuale civile", "mediazione"], of: "del diritto processuale civile", chapters: [
    "La giurisdizione e la competenza", "L'azione e le condizioni dell'azione", "Le parti e i difensori",
    "Il processo di cognizione di primo grado", "Il procedimento semplificato di cognizione", "Le prove nel processo civile",
    "La mediazione e gli strumenti alternativi di risoluzione delle controversie", "Le impugnazioni"] },
  { keywords: ["tributar", "fisc"], of: "del diritto tributario", chapters: [
    "I principi costituzionali in materia tributaria", "Le fonti del diritto tributario", "L'obbligazione tributaria",
    "Le dichiarazioni e gli obblighi del contribuente", "L'accertamento delle imposte", "La riscossione",
    "Le sanzioni amministrative e penali tributarie", "Il processo tributario"] },
  { keywords: ["amministrativ", "contratti pubblici", "appalti"], of: "del diritto amministrativo", chapters: [
    "I principi dell'azione amministrativa", "L'organizzazione amministrativa", "Le situazioni giuridiche soggettive",
    "Il procedimento amministrativo", "Il provvedimento amministrativo e la sua invalidità", "I contratti della pubblica amministrazione",
    "La responsabilità della pubblica amministrazione", "La giustizia amministrativa"] },
  { keywords: ["unione europea"], of: "del diritto dell'Unione europea", chapters: [
    "Dalle Comunità europee all'Unione europea", "Le istituzioni dell'Unione", "Le fonti del diritto dell'Unione",
    "Il rapporto tra diritto dell'Unione e diritto interno", "Il sistema giurisdizionale dell'Unione", "Il mercato interno e le libertà di circolazione",
    "La disciplina della concorrenza", "La tutela dei diritti fondamentali"] },
  { keywords: ["internazionale"], of: "del diritto internazionale", chapters: [
    "La comunità internazionale e i suoi soggetti", "La consuetudine internazionale", "I trattati internazionali",
    "L'adattamento del diritto interno al diritto internazionale", "Le immunità degli Stati", "La responsabilità internazionale",
    "Il divieto dell'uso della forza", "La tutela internazionale dei diritti umani"] },
  { keywords: ["famiglia", "successioni"], of: "del diritto di famiglia e delle successioni", chapters: [
    "Il matrimonio e le unioni civili", "I rapporti personali e patrimoniali tra coniugi", "La filiazione",
    "La responsabilità genitoriale", "Separazione e divorzio", "La successione legittima e i legittimari",
    "Il testamento", "La divisione ereditaria"] },
  { keywords: ["responsabilità civile", "danno"], of: "della responsabilità civile", chapters: [
    "La responsabilità civile: funzioni e fondamento", "Il fatto illecito e i suoi elementi", "Il nesso di causalità",
    "La colpa e la responsabilità oggettiva", "Il danno patrimoniale", "Il danno non patrimoniale",
    "La responsabilità sanitaria", "La liquidazione del danno e le tabelle"] },
  { keywords: ["commerciale", "società", "crisi d'impresa"], of: "del diritto commerciale", chapters: [
    "L'imprenditore e l'impresa", "L'azienda e i segni distintivi", "Le società di persone",
    "La società per azioni", "La società a responsabilità limitata", "I titoli di credito",
    "I contratti d'impresa", "La crisi d'impresa e l'insolvenza"] },
  { keywords: ["codice civile"], of: "del diritto civile", chapters: [
    "Disposizioni sulla legge in generale", "Libro primo. Delle persone e della famiglia", "Libro secondo. Delle successioni",
    "Libro terzo. Della proprietà", "Libro quarto. Delle obbligazioni", "Libro quinto. Del lavoro",
    "Libro sesto. Della tutela dei diritti", "Disposizioni di attuazione e transitorie"] },
  { keywords: ["privato", "diritto civile"], of: "del diritto privato", chapters: [
    "L'ordinamento giuridico e le fonti del diritto privato", "Le persone fisiche e gli enti", "I beni e i diritti reali",
    "Il possesso", "Le obbligazioni", "Il contratto in generale",
    "La responsabilità civile", "La famiglia e le successioni"] },
  { keywords: ["costituzional", "pubblico"], of: "del diritto costituzionale", chapters: [
    "Lo Stato e la Costituzione", "Le fonti del diritto", "I diritti e i doveri dei cittadini",
    "Il Parlamento", "Il Governo", "Il Presidente della Repubblica",
    "La Magistratura", "La Corte costituzionale"] },
  { keywords: ["privacy", "dati personali", "intelligenza artificiale", "tecnologie"], of: "del diritto delle nuove tecnologie", chapters: [
    "Il quadro normativo europeo e nazionale", "I principi del trattamento dei dati", "Le basi giuridiche del trattamento",
    "I diritti dell'interessato", "Titolare, responsabile e DPO", "La sicurezza e la gestione delle violazioni",
    "I trasferimenti di dati verso paesi terzi", "L'intelligenza artificiale e il regolamento europeo"] },
  { keywords: ["romano"], of: "della storia del diritto romano", chapters: [
    "Le origini di Roma e l'età monarchica", "La repubblica e le sue magistrature", "Le leggi delle XII Tavole",
    "Il processo formulare e l'editto del pretore", "La giurisprudenza classica", "Il principato",
    "Il tardo impero e le codificazioni", "La compilazione giustinianea"] },
  { keywords: ["filosofia"], of: "della filosofia del diritto", chapters: [
    "Che cos'è la filosofia del diritto", "Il giusnaturalismo", "Il positivismo giuridico",
    "Diritto e morale", "La norma giuridica e l'ordinamento", "L'interpretazione del diritto",
    "Diritti umani e giustizia", "Diritto e nuove tecnologie"] },
  { keywords: ["esame", "concorso", "quiz"], of: "della preparazione all'esame", chapters: [
    "Come si affronta la prova scritta", "Il metodo del parere motivato", "La redazione dell'atto giudiziario",
    "Tracce svolte di diritto civile", "Tracce svolte di diritto penale", "Tracce svolte di diritto amministrativo",
    "La preparazione della prova orale", "Errori frequenti e consigli pratici"] },
];

/** Titles that match no subject (a practical guide, a mixed offer) get this general course. */
const GENERAL: Subject = {
  keywords: [],
  of: "degli studi giuridici",
  chapters: [
    "Introduzione e metodo di studio",
    "Il quadro normativo di riferimento",
    "I principi generali",
    "La disciplina in dettaglio",
    "Il ruolo della giurisprudenza",
    "Questioni applicative ricorrenti",
    "Casi pratici commentati",
    "Prospettive di riforma",
  ],
};

const OPENINGS: readonly ((title: string, of: string, n: number) => string)[] = [
  (title, of, n) =>
    `Il capitolo ${n} affronta «${title}», uno dei temi centrali ${of}. L'esposizione parte dalle nozioni di base e arriva, per gradi, alle questioni su cui dottrina e giurisprudenza si confrontano ancora oggi.`,
  (title, of) =>
    `Oggetto di questo capitolo è «${title}». Si tratta di un argomento che lo studente incontra presto nello studio ${of} e che il professionista ritrova di continuo nella pratica quotidiana.`,
  (title, of) =>
    `Con «${title}» si entra nel vivo ${of}. Il capitolo ne ricostruisce l'evoluzione storica e normativa, per poi soffermarsi sulla disciplina vigente e sui suoi snodi applicativi.`,
];

const PARAGRAPHS: readonly string[] = [
  "Il punto di partenza è sempre il dato normativo. Le disposizioni rilevanti vanno lette in modo sistematico, alla luce dei principi costituzionali e delle fonti europee, per coglierne la ratio e per orientarsi tra le diverse soluzioni interpretative proposte nel tempo.",
  "La giurisprudenza di legittimità ha contribuito in modo decisivo a precisare i confini della materia. Le pronunce più significative, comprese quelle delle Sezioni Unite, sono richiamate nel testo e messe a confronto, così da offrire un quadro aggiornato degli orientamenti prevalenti e dei contrasti ancora aperti.",
  "Accanto alla ricostruzione teorica, il capitolo propone alcuni casi pratici tratti dall'esperienza applicativa: ciascuno è seguito da una breve soluzione ragionata che mostra come i principi esposti operino nella realtà concreta.",
  "Non mancano i riferimenti al dibattito dottrinale. Le tesi principali sono presentate in modo sintetico, senza rinunciare al rigore, indicando per ciascuna gli argomenti a sostegno e le obiezioni più convincenti.",
  "Le riforme più recenti hanno inciso in misura rilevante sulla disciplina: il testo ne dà conto puntualmente, segnalando le norme transitorie e i primi orientamenti della prassi applicativa.",
  "In chiusura, uno schema di sintesi riprende i concetti essenziali e alcune domande di verifica consentono di controllare la comprensione degli argomenti prima di passare al capitolo successivo.",
];

/** FNV-1a: a small stable hash, so a product's chapters never change between seeds. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** The subject a product title belongs to, by its keywords; the general course otherwise. */
export function subjectOf(name: string): Subject {
  const lower = name.toLowerCase();
  return SUBJECTS.find((s) => s.keywords.some((k) => lower.includes(k))) ?? GENERAL;
}

/** The chapters of one readable product: 5–8 of them, each of 2–4 paragraphs separated by blank lines. */
export function buildChapters(product: { sku: string; name: string }): ChapterSeed[] {
  const subject = subjectOf(product.name);
  const seed = hash(product.sku);
  const count = 5 + (seed % 4);
  return subject.chapters.slice(0, count).map((title, i) => {
    const position = i + 1;
    const mix = hash(`${product.sku}#${position}`);
    const opening = OPENINGS[mix % OPENINGS.length]!(title, subject.of, position);
    // 1–3 more paragraphs, consecutive in the pool (wrapping), starting at a different one each chapter.
    const more = 1 + ((mix >>> 4) % 3);
    const start = (mix >>> 8) % PARAGRAPHS.length;
    const rest = Array.from({ length: more }, (_, k) => PARAGRAPHS[(start + k) % PARAGRAPHS.length]!);
    return { position, title, body: [opening, ...rest].join("\n\n") };
  });
}
