// Marketing landing pages (/landingpage/<variant>) and their cards.
import type { ProductSeed } from "./catalog.ts";
import { EDU_CAROUSEL_SUBJECTS } from "./reference.ts";
import { LANDING_VARIANTS, type LandingVariant } from "#shared/landing-variants.ts";
import { formatEuro } from "#shared/euro.ts";
import type { landingPages } from "#server/db/schema/index.ts";
import type { SeedLinks } from "./types.ts";

export type LandingPageSeed = Omit<typeof landingPages.$inferInsert, "id"> & { variant: LandingVariant };

/** A card; `productKey` refers to a seeded product (ProductSeed.key). */
export type LandingCardSeed = {
  variant: LandingVariant;
  kind: "publication" | "news" | "collaborate" | "subject";
  position: number;
  title: string;
  text: string | null;
  label: string | null;
  url: string | null;
  cta: string | null;
  productKey: string | null;
  priceNote: string | null;
};

const ACTIVATE_TITLE = "Hai acquistato un libro?";
const ACTIVATE_TEXT =
  "All'interno del volume trovi un codice di attivazione: inseriscilo nella tua area personale per avere 6 mesi di accesso gratuito alla versione digitale e ai contenuti aggiuntivi. I 6 mesi decorrono dal giorno in cui inserisci il codice.";

export function buildLandingPages(links: SeedLinks): LandingPageSeed[] {
  const page = (
    p: Omit<LandingPageSeed, "activateTitle" | "activateText" | "showEduBlocks"> & Partial<LandingPageSeed>,
  ): LandingPageSeed => ({
    activateTitle: ACTIVATE_TITLE,
    activateText: ACTIVATE_TEXT,
    showEduBlocks: false,
    ...p,
  });
  return [
    page({
      variant: "landing",
      title: "Novalex Editore - Libri, eBook, corsi e riviste di diritto",
      metaDescription:
        "Manuali universitari, codici commentati, eBook, corsi di formazione e riviste giuridiche: scopri le ultime pubblicazioni Novalex Editore e attiva i contenuti digitali dei tuoi libri.",
      bannerEyebrow: "Novalex Editore",
      bannerTitle: "Il diritto, in ogni formato",
      bannerText:
        "Manuali, codici, eBook, corsi e riviste per chi studia, insegna ed esercita il diritto. Ogni nostro libro include l'accesso ai contenuti digitali.",
      bannerCtaLabel: "Sfoglia le novità",
      bannerCtaUrl: `${links.mainSite}/novita`,
      publicationsTitle: "Ultime pubblicazioni",
      newsTitle: "Novità dalla piattaforma",
    }),
    page({
      variant: "edu",
      title: "EDU - La piattaforma per studiare diritto | Novalex Editore",
      metaDescription:
        "Con EDU hai accesso illimitato a tutte le materie: quiz e test di autovalutazione, mappe concettuali, casi pratici e glossari. Sei mesi a 4,50 €/mese, disdici quando vuoi.",
      bannerEyebrow: "Promo -50%",
      bannerTitle: "Prepara gli esami di Giurisprudenza con EDU",
      bannerText:
        "Accesso illimitato a tutte le materie EDU, con quiz e test di autovalutazione, mappe concettuali, casi pratici e glossari. Sei mesi a soli 4,50 €/mese: rinnovo automatico, disdici quando vuoi.",
      bannerCtaLabel: "Abbonati a EDU",
      bannerCtaUrl: "/edu/",
      publicationsTitle: "I manuali da studiare con EDU",
      newsTitle: "Novità su EDU",
      activateTitle: "Hai un manuale con il bollino eBook+EDU?",
      activateText:
        "Inserisci il codice di attivazione stampato nel libro: ottieni l'eBook gratuito e 6 mesi di accesso a EDU. I 6 mesi decorrono dal giorno in cui inserisci il codice.",
      showEduBlocks: true,
    }),
    page({
      variant: "universita",
      title: "Novalex per l'Università - Manuali e risorse digitali",
      metaDescription:
        "Manuali universitari di diritto su carta e in digitale da 4,90 €/mese, copie saggio per i docenti e strumenti di studio per gli studenti dei corsi di Giurisprudenza.",
      bannerEyebrow: "Università",
      bannerTitle: "Manuali che accompagnano tutto il percorso di studi",
      bannerText:
        "Dalla prima lezione alla tesi di laurea: i manuali Novalex sono disponibili anche in digitale, da 4,90 €/mese, con schemi, mappe concettuali e aggiornamenti online.",
      bannerCtaLabel: "Catalogo universitario",
      bannerCtaUrl: `${links.mainSite}/universita`,
      publicationsTitle: "Novità per l'università",
      newsTitle: "Dalla piattaforma",
    }),
    page({
      variant: "studenti",
      title: "Studenti - Studia diritto con Novalex Editore",
      metaDescription:
        "Manuali digitali da 4,90 €/mese, compendi, schemi e la piattaforma EDU con quiz e mappe concettuali per preparare gli esami di Giurisprudenza.",
      bannerEyebrow: "Per gli studenti",
      bannerTitle: "Studia meglio, arriva preparato all'esame",
      bannerText:
        "Manuali digitali da 4,90 €/mese, compendi per il ripasso e la piattaforma EDU con quiz, mappe concettuali e casi pratici per ogni materia.",
      bannerCtaLabel: "Scopri EDU",
      bannerCtaUrl: "/edu/",
      publicationsTitle: "Da studiare questo semestre",
      newsTitle: "Novità per chi studia",
    }),
    page({
      variant: "docenti",
      title: "Docenti - Adozioni, copie saggio e materiali didattici | Novalex Editore",
      metaDescription:
        "Richiedi una copia saggio, adotta un manuale Novalex per il tuo corso e scopri i materiali didattici digitali riservati ai docenti.",
      bannerEyebrow: "Per i docenti",
      bannerTitle: "Al fianco di chi insegna il diritto",
      bannerText:
        "Richiedi una copia saggio, valuta i manuali per l'adozione e scopri i materiali didattici digitali per le tue lezioni: slide, casi e test da condividere con gli studenti.",
      bannerCtaLabel: "Richiedi una copia saggio",
      bannerCtaUrl: `${links.mainSite}/copia-saggio`,
      publicationsTitle: "Nuove edizioni da adottare",
      newsTitle: "Strumenti per la didattica",
    }),
    page({
      variant: "professionali",
      title: "Professionisti - Codici commentati, riviste e formazione | Novalex Editore",
      metaDescription:
        "Codici commentati, trattati, riviste e corsi di formazione continua per avvocati, notai, magistrati, commercialisti e consulenti del lavoro.",
      bannerEyebrow: "Professioni legali",
      bannerTitle: "Aggiornamento continuo per chi esercita il diritto",
      bannerText:
        "Codici commentati, trattati, riviste e corsi di formazione continua: le fonti e gli strumenti operativi per la pratica quotidiana dello studio.",
      bannerCtaLabel: "Catalogo professionale",
      bannerCtaUrl: `${links.mainSite}/professionali`,
      publicationsTitle: "Ultime uscite per i professionisti",
      newsTitle: "Formazione e aggiornamento",
    }),
    page({
      variant: "enti-biblioteche",
      title: "Enti e biblioteche - Licenze e abbonamenti istituzionali | Novalex Editore",
      metaDescription:
        "Licenze multiutente per eBook e riviste, accesso tramite indirizzo IP e offerte dedicate a biblioteche universitarie, tribunali e pubbliche amministrazioni.",
      bannerEyebrow: "Enti e biblioteche",
      bannerTitle: "Il catalogo Novalex per biblioteche, atenei e amministrazioni",
      bannerText:
        "Licenze multiutente per eBook e riviste, accesso tramite riconoscimento IP o proxy e statistiche di consultazione: soluzioni su misura per biblioteche, uffici giudiziari ed enti pubblici.",
      bannerCtaLabel: "Richiedi un'offerta",
      bannerCtaUrl: `${links.mainSite}/enti-biblioteche`,
      publicationsTitle: "Per le collezioni della tua biblioteca",
      newsTitle: "Servizi per le istituzioni",
      activateTitle: "Hai ricevuto un volume con codice di attivazione?",
      activateText:
        "I volumi acquistati dalla biblioteca contengono un codice di attivazione: l'utente che lo inserisce nella propria area personale ottiene 6 mesi di accesso gratuito alla versione digitale, a partire dal giorno dell'inserimento.",
    }),
    page({
      variant: "biblioteca-digitale",
      title: "Biblioteca digitale - eBook giuridici da 6,90 €/mese | Novalex Editore",
      metaDescription:
        "Manuali, codici e saggi giuridici in formato eBook da 6,90 €/mese: leggili dal browser su computer, tablet e smartphone.",
      bannerEyebrow: "Biblioteca digitale",
      bannerTitle: "Tutti i nostri eBook, sempre con te",
      bannerText:
        "Leggi manuali, codici commentati e saggi Novalex da computer, tablet e smartphone, con ricerca nel testo ed evidenziazioni. Gli eBook sono disponibili da 6,90 €/mese.",
      bannerCtaLabel: "Scopri gli eBook",
      bannerCtaUrl: `${links.shop}/ebook`,
      publicationsTitle: "Nuovi eBook",
      newsTitle: "Leggere in digitale",
    }),
  ];
}

// ---------------------------------------------------------------- cards

/** Four publications per page, by product key. */
const PUBLICATIONS: Record<LandingVariant, readonly string[]> = {
  // The four landing prices: 32,00 / 38,00 / 69,00 / 54,00 €.
  landing: ["pf01", "pf02", "ph01", "pf03"],
  edu: ["edu", "ebookedu", "pf04-eb", "eb12"],
  universita: ["pf04", "pf05", "pf10", "pf07"],
  studenti: ["pf01-eb", "eb11", "eb12", "pf16"],
  docenti: ["pf08", "pf06", "ph08", "ph09"],
  professionali: ["ph02", "ph03", "pf14", "eb04"],
  "enti-biblioteche": ["rv01", "ph04", "ph05", "rv04"],
  "biblioteca-digitale": ["eb04", "eb07", "ph01-eb", "eb09"],
};

type NewsRow = readonly [
  label: "Piattaforma" | "Novità" | "Eventi",
  title: string,
  text: string,
  url: string,
  cta: string,
  priceNote?: string,
];

function newsRows(links: SeedLinks): Record<LandingVariant, readonly NewsRow[]> {
  const { mainSite, coursePlatform, eduPlatform, shop } = links;
  // prettier-ignore
  return {
    landing: [
      ["Piattaforma", "La tua area personale si rinnova", "Tutti i tuoi eBook, corsi e riviste in un'unica pagina, con il segnalibro che ricorda dove eri rimasto.", "/dashboard/", "Vai alla dashboard"],
      ["Novità", "Codice civile commentato, IV edizione", "La nuova edizione aggiornata alle ultime riforme, con la rassegna della giurisprudenza di legittimità più recente.", `${mainSite}/novita`, "Leggi di più"],
      ["Eventi", "Novalex alla Fiera del libro giuridico", "Presentazioni, incontri con gli autori e sconti dedicati in fiera: ti aspettiamo al nostro stand.", `${mainSite}/eventi`, "Scopri il programma"],
    ],
    edu: [
      ["Piattaforma", "Nuove mappe concettuali", "Diritto commerciale e diritto del lavoro si arricchiscono di nuove mappe interattive e di casi pratici risolti.", eduPlatform, "Vai a EDU"],
      ["Novità", "Test di autovalutazione a tempo", "Simula la prova d'esame con test a tempo e ricevi un riepilogo degli argomenti da ripassare.", `${eduPlatform}/test`, "Prova un test"],
      ["Eventi", "Webinar: come si studia un manuale", "Un incontro online gratuito con i nostri autori sul metodo di studio per gli esami di Giurisprudenza.", `${mainSite}/eventi`, "Iscriviti"],
    ],
    universita: [
      ["Piattaforma", "Manuali digitali da 4,90 €/mese", "Leggi i manuali Novalex in digitale per tutto il semestre, con schemi e aggiornamenti online.", `${shop}/universita/digitale`, "Scopri l'offerta", "4,90 €/mese"],
      ["Novità", "Le nuove edizioni per l'anno accademico", "Diritto privato, costituzionale e processuale civile: le nuove edizioni sono già in libreria.", `${mainSite}/universita/novita`, "Sfoglia"],
      ["Eventi", "Incontri nelle università", "Presentazioni dei manuali e seminari con gli autori nelle principali facoltà di Giurisprudenza.", `${mainSite}/eventi`, "Vedi il calendario"],
    ],
    studenti: [
      ["Piattaforma", "Il manuale digitale a 4,90 €/mese", "Tutto il manuale sul tuo tablet, con evidenziazioni, note e ricerca nel testo: paghi solo i mesi in cui studi.", `${shop}/universita/digitale`, "Attiva ora", "4,90 €/mese"],
      ["Novità", "EDU: quiz e mappe per ogni materia", "Con EDU ti prepari all'esame con test di autovalutazione, mappe concettuali, casi pratici e glossari.", "/edu/", "Scopri EDU", "4,50 €/mese"],
      ["Eventi", "Aperitivo giuridico con gli autori", "Un incontro informale per parlare di esami, tesi e sbocchi professionali con chi scrive i tuoi manuali.", `${mainSite}/eventi`, "Partecipa"],
    ],
    docenti: [
      ["Piattaforma", "Materiali per le lezioni", "Slide, casi pratici e test pronti da usare in aula, riservati ai docenti che adottano un manuale Novalex.", `${mainSite}/docenti/materiali`, "Scopri i materiali"],
      ["Novità", "EDU per i tuoi studenti", "Proponi EDU ai tuoi studenti: quiz, mappe concettuali e casi pratici collegati ai manuali adottati.", "/edu/", "Scopri EDU"],
      ["Eventi", "Seminari di didattica del diritto", "Un ciclo di incontri online sulle nuove metodologie didattiche per i corsi giuridici.", `${mainSite}/eventi`, "Iscriviti"],
    ],
    professionali: [
      ["Piattaforma", "Corsi accreditati in streaming", "Segui i corsi di formazione continua in diretta o in differita e scarica l'attestato dalla piattaforma corsi.", coursePlatform, "Vai ai corsi"],
      ["Novità", "Le riviste anche in digitale", "Ogni fascicolo delle riviste Novalex è disponibile online, con l'archivio delle annate precedenti.", `${mainSite}/riviste`, "Scopri le riviste"],
      ["Eventi", "Convegno nazionale sulla crisi d'impresa", "Magistrati, professori e professionisti a confronto sugli strumenti di composizione della crisi.", `${mainSite}/eventi`, "Registrati"],
    ],
    "enti-biblioteche": [
      ["Piattaforma", "Accesso tramite indirizzo IP", "Gli utenti della biblioteca consultano eBook e riviste senza credenziali personali, dalla rete dell'ente o tramite proxy.", `${mainSite}/enti-biblioteche/accesso`, "Come funziona"],
      ["Novità", "Pacchetti di riviste per gli atenei", "Abbonamenti multiutente a tutte le riviste Novalex, con archivio storico e statistiche di utilizzo.", `${mainSite}/enti-biblioteche/riviste`, "Richiedi un preventivo"],
      ["Eventi", "Incontro con i bibliotecari", "Una giornata di formazione sulle risorse digitali giuridiche per bibliotecari e documentalisti.", `${mainSite}/eventi`, "Partecipa"],
    ],
    "biblioteca-digitale": [
      ["Piattaforma", "eBook da 6,90 €/mese", "Scegli i titoli che ti servono e leggili per tutto il tempo che vuoi, con disdetta libera.", `${shop}/ebook`, "Scopri l'offerta", "da 6,90 €/mese"],
      ["Novità", "Leggi dal browser", "Nessuna app da installare: gli eBook si aprono in Chrome, Edge, Firefox e Safari, su computer, tablet e smartphone.", "/help-center/", "Leggi le FAQ"],
      ["Eventi", "Presentazione: il diritto e l'intelligenza artificiale", "Gli autori presentano il nuovo eBook sull'AI Act in un incontro online aperto a tutti.", `${mainSite}/eventi`, "Iscriviti"],
    ],
  };
}

function collaborateRows(links: SeedLinks): ReadonlyArray<readonly [title: string, text: string, url: string, cta: string]> {
  const { mainSite } = links;
  // prettier-ignore
  return [
    ["Pubblica con noi", "Hai un progetto editoriale? Invia la tua proposta alla redazione: valutiamo manuali, monografie e opere per la professione.", `${mainSite}/pubblica-con-noi`, "Invia una proposta"],
    ["Richiedi una copia saggio", "Sei un docente? Richiedi gratuitamente la copia saggio dei volumi che vuoi valutare per i tuoi corsi.", `${mainSite}/copia-saggio`, "Richiedi"],
    ["Adotta un volume", "Scopri come adottare un manuale Novalex e quali materiali didattici mettiamo a disposizione dei docenti e dei loro studenti.", `${mainSite}/adozioni`, "Scopri come"],
    ["Richiedi il catalogo", "Ricevi il catalogo aggiornato delle nostre pubblicazioni per l'università e per le professioni legali.", `${mainSite}/catalogo`, "Richiedi il catalogo"],
  ];
}

const SUBJECT_TEXTS: Record<string, string> = {
  pubblico: "Fonti, organizzazione dello Stato e pubblica amministrazione, con mappe e quiz di verifica.",
  costituzionale: "Principi fondamentali, diritti e organi costituzionali spiegati con schemi e casi.",
  privato: "Obbligazioni, contratti, responsabilità civile e famiglia: il programma completo con test a tempo.",
  penale: "Parte generale e parte speciale con casi pratici e glossario dei termini.",
  lavoro: "Rapporto di lavoro, diritto sindacale e previdenza, aggiornati alle ultime riforme.",
  amministrativo: "Procedimento, provvedimento e giustizia amministrativa con mappe concettuali.",
  ue: "Istituzioni, fonti e mercato interno dell'Unione europea in quiz e schede di sintesi.",
  commerciale: "Impresa, società, titoli di credito e crisi d'impresa con casi risolti.",
  tributario: "Principi, imposte e processo tributario con esercitazioni guidate.",
};

/** Every card of every landing page. `products` resolves the publication cards. */
export function buildLandingCards(
  links: SeedLinks,
  products: ReadonlyMap<string, ProductSeed>,
  productTypeNames: ReadonlyMap<string, string>,
): LandingCardSeed[] {
  const cards: LandingCardSeed[] = [];
  const news = newsRows(links);
  const collaborate = collaborateRows(links);

  for (const variant of LANDING_VARIANTS) {
    PUBLICATIONS[variant].forEach((key, i) => {
      const product = products.get(key);
      if (!product) throw new Error(`Landing ${variant}: unknown product ${key}`);
      const isEduOffer = product.code === "abbonamentoedu";
      cards.push({
        variant,
        kind: "publication",
        position: i + 1,
        title: product.name,
        text: product.shortAuthors,
        label: productTypeNames.get(product.typeCode) ?? null,
        url: isEduOffer
          ? "/edu/"
          : product.typeCode === "rivista" || product.typeCode === "corso"
            ? product.url
            : `${links.shop}/${product.sku}`,
        cta: "Scopri",
        productKey: key,
        priceNote: product.monthlyPriceCents ? `${formatEuro(product.monthlyPriceCents)}/mese` : null,
      });
    });

    news[variant].forEach(([label, title, text, url, cta, priceNote], i) => {
      cards.push({
        variant,
        kind: "news",
        position: i + 1,
        title,
        text,
        label,
        url,
        cta,
        productKey: null,
        priceNote: priceNote ?? null,
      });
    });

    collaborate.forEach(([title, text, url, cta], i) => {
      cards.push({
        variant,
        kind: "collaborate",
        position: i + 1,
        title,
        text,
        label: null,
        url,
        cta,
        productKey: null,
        priceNote: null,
      });
    });
  }

  EDU_CAROUSEL_SUBJECTS.forEach((subject, i) => {
    cards.push({
      variant: "edu",
      kind: "subject",
      position: i + 1,
      title: subject.name,
      text: SUBJECT_TEXTS[subject.code] ?? null,
      label: "EDU",
      url: `${links.eduPlatform}/materie/${subject.code}`,
      cta: "Vai al corso",
      productKey: null,
      priceNote: null,
    });
  });

  return cards;
}
