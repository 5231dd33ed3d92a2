// Dashboard boxes: promo areas per profession, the four contact boxes and the products to
// discover (referenced by ISBN, as in the publisher's feed).
import type { ProductSeed } from "./catalog.ts";
import { EDU_SUBJECTS } from "./reference.ts";
import type { SeedLinks } from "./types.ts";

const PROMO_PREFIXES = ["dashboard_studenti", "dashboard_docenti", "dashboard_professionisti"] as const;
const PROMO_SUFFIXES = ["_top_right", "_left", "_1", "_2", "_3", "_4", "_top_right_edu", "_left_edu"] as const;
type PromoSuffix = (typeof PROMO_SUFFIXES)[number];

type SmallBoxSeed = { title: string; url: string; cta: string; color: string };

export type PromoBoxSeed = {
  areaCode: string;
  title: string;
  subtitle: string | null;
  isBanner: boolean;
  bannerImage: string | null;
  bannerUrl: string | null;
  bannerCta: string | null;
  smallBoxes: SmallBoxSeed[];
};

type BoxSpec = {
  title: string;
  subtitle?: string;
  /** A banner box: one link with its call to action. */
  banner?: { url: string; cta: string };
  /** Small boxes: [title, url, cta]; colours are assigned in order from the palette. */
  boxes?: ReadonlyArray<readonly [title: string, url: string, cta: string]>;
};

const PALETTE = ["#0b5394", "#8e1b3a", "#1b6e4b", "#b45f06", "#5b3f8c", "#2f4f6f"];

function specs(links: SeedLinks): Record<(typeof PROMO_PREFIXES)[number], Record<PromoSuffix, BoxSpec>> {
  const { mainSite, shop, coursePlatform, eduPlatform } = links;
  const eduSubjectBoxes = (codes: readonly string[], cta: string) =>
    codes.map((code) => {
      const subject = EDU_SUBJECTS.find((s) => s.code === code);
      if (!subject) throw new Error(`Unknown EDU subject ${code}`);
      return [subject.name, `${eduPlatform}/materie/${code}`, cta] as const;
    });

  return {
    dashboard_studenti: {
      _top_right: {
        title: "Studia con EDU",
        subtitle: "Quiz, mappe concettuali e casi pratici per tutte le materie: 6 mesi a 4,50 €/mese (promo -50%).",
        banner: { url: "/edu/", cta: "Scopri EDU" },
      },
      _top_right_edu: {
        title: "Il tuo abbonamento EDU è attivo",
        subtitle: "Riprendi lo studio da dove eri rimasto: nuove mappe e nuovi quiz ogni settimana.",
        banner: { url: eduPlatform, cta: "Vai a EDU" },
      },
      _left: {
        title: "Preparati agli esami",
        subtitle: "Manuali, compendi e strumenti per ogni materia",
        boxes: [
          ["Manuali digitali da 4,90 €/mese", `${shop}/universita/digitale`, "Scopri"],
          ["Compendi e schemi per il ripasso", `${shop}/universita/compendi`, "Sfoglia"],
          ["Quiz e test di autovalutazione", "/edu/", "Prova EDU"],
          ["Corsi di preparazione", coursePlatform, "Vai ai corsi"],
        ],
      },
      _left_edu: {
        title: "Le tue materie EDU",
        subtitle: "Mappe, quiz e casi pratici",
        boxes: eduSubjectBoxes(["privato", "costituzionale", "penale", "amministrativo", "commerciale", "ue"], "Studia"),
      },
      _1: {
        title: "Novità per lo studio",
        subtitle: "Le nuove edizioni dei manuali più adottati",
        boxes: [
          ["Istituzioni di diritto pubblico", `${mainSite}/novita`, "Scopri"],
          ["Manuale di diritto penale", `${mainSite}/novita`, "Scopri"],
        ],
      },
      _2: {
        title: "Laboratorio di scrittura giuridica",
        subtitle: "Impara a scrivere tesi, pareri e atti in modo chiaro ed efficace.",
        banner: { url: `${coursePlatform}/course/view.php?id=2111`, cta: "Iscriviti" },
      },
      _3: {
        title: "Dopo la laurea",
        boxes: [
          ["Esame di avvocato", `${mainSite}/esame-avvocato`, "Preparati"],
          ["Concorso in magistratura", `${mainSite}/concorso-magistratura`, "Preparati"],
          ["Concorsi pubblici", `${mainSite}/concorsi`, "Scopri"],
        ],
      },
      _4: {
        title: "Hai un libro con il codice di attivazione?",
        subtitle: "Inseriscilo con il pulsante «Inserisci codice»: avrai 6 mesi di accesso gratuito alla versione digitale.",
      },
    },
    dashboard_docenti: {
      _top_right: {
        title: "Copie saggio per il nuovo anno accademico",
        subtitle: "Richiedi gratuitamente i volumi da valutare per i tuoi corsi.",
        banner: { url: `${mainSite}/copia-saggio`, cta: "Richiedi una copia saggio" },
      },
      _top_right_edu: {
        title: "EDU per i tuoi studenti",
        subtitle: "Quiz, mappe concettuali e casi pratici collegati ai manuali che adotti.",
        banner: { url: eduPlatform, cta: "Vai a EDU" },
      },
      _left: {
        title: "Strumenti per la didattica",
        subtitle: "Tutto quello che serve per preparare il tuo corso",
        boxes: [
          ["Richiedi una copia saggio", `${mainSite}/copia-saggio`, "Richiedi"],
          ["Adotta un volume", `${mainSite}/adozioni`, "Scopri come"],
          ["Materiali per le lezioni", `${mainSite}/docenti/materiali`, "Scarica"],
          ["Catalogo universitario", `${mainSite}/universita`, "Sfoglia"],
        ],
      },
      _left_edu: {
        title: "Le materie EDU",
        subtitle: "Esplora i contenuti proposti ai tuoi studenti",
        boxes: eduSubjectBoxes(["pubblico", "privato", "lavoro", "tributario"], "Esplora"),
      },
      _1: {
        title: "Pubblica con noi",
        subtitle: "Hai un progetto di manuale o di monografia? La redazione valuta ogni proposta.",
        banner: { url: `${mainSite}/pubblica-con-noi`, cta: "Invia una proposta" },
      },
      _2: {
        title: "Nuove edizioni",
        boxes: [
          ["Diritto commerciale, X edizione", `${mainSite}/novita`, "Scopri"],
          ["Diritto del lavoro, VI edizione", `${mainSite}/novita`, "Scopri"],
        ],
      },
      _3: {
        title: "Riviste scientifiche",
        subtitle: "Proponi un contributo alle nostre riviste",
        boxes: [["Norme per gli autori", `${mainSite}/riviste/norme-autori`, "Leggi"]],
      },
      _4: {
        title: "Seminari di didattica del diritto",
        subtitle: "Incontri online sulle nuove metodologie didattiche per i corsi giuridici.",
        banner: { url: `${mainSite}/eventi`, cta: "Vedi il calendario" },
      },
    },
    dashboard_professionisti: {
      _top_right: {
        title: "Formazione continua accreditata",
        subtitle: "Corsi in aula e in streaming per avvocati, commercialisti e consulenti del lavoro.",
        banner: { url: coursePlatform, cta: "Scopri i corsi" },
      },
      _top_right_edu: {
        title: "Ripassa con EDU",
        subtitle: "Mappe concettuali e casi pratici per aggiornarti sulle materie fondamentali.",
        banner: { url: eduPlatform, cta: "Vai a EDU" },
      },
      _left: {
        title: "Strumenti per la professione",
        subtitle: "Codici, riviste e formulari sempre aggiornati",
        boxes: [
          ["Codici commentati", `${shop}/codici`, "Sfoglia"],
          ["Riviste giuridiche", `${mainSite}/riviste`, "Abbonati"],
          ["Formulari e modelli", `${shop}/formulari`, "Scopri"],
          ["Corsi accreditati", coursePlatform, "Iscriviti"],
          ["Novità in libreria", `${mainSite}/novita`, "Scopri"],
        ],
      },
      _left_edu: {
        title: "Le materie EDU",
        subtitle: "Ripassa i fondamentali",
        boxes: eduSubjectBoxes(["privato", "penale", "lavoro", "amministrativo", "tributario"], "Ripassa"),
      },
      _1: {
        title: "Codice civile commentato",
        subtitle: "La nuova edizione con la giurisprudenza di legittimità più recente.",
        banner: { url: `${mainSite}/novita`, cta: "Scopri" },
      },
      _2: {
        title: "Aggiornamento in diritto del lavoro",
        boxes: [
          ["Codice del lavoro commentato", `${mainSite}/novita`, "Scopri"],
          ["Aggiornamento annuale in diritto del lavoro", `${coursePlatform}/course/view.php?id=2113`, "Iscriviti"],
          ["Lavoro e relazioni industriali", `${mainSite}/riviste/lavoro-e-relazioni-industriali`, "Leggi"],
        ],
      },
      _3: {
        title: "Crisi d'impresa",
        boxes: [
          ["Commentario al Codice della crisi", `${mainSite}/novita`, "Scopri"],
          ["Corso sulla composizione negoziata", `${coursePlatform}/course/view.php?id=2108`, "Iscriviti"],
        ],
      },
      _4: {
        title: "Convegno nazionale sulla crisi d'impresa",
        subtitle: "Magistrati, professori e professionisti a confronto. Evento accreditato per la formazione continua.",
        banner: { url: `${mainSite}/eventi`, cta: "Registrati" },
      },
    },
  };
}

export function buildPromoBoxes(links: SeedLinks): PromoBoxSeed[] {
  const all = specs(links);
  return PROMO_PREFIXES.flatMap((prefix) =>
    PROMO_SUFFIXES.map((suffix) => {
      const spec = all[prefix][suffix];
      return {
        areaCode: `${prefix}${suffix}`,
        title: spec.title,
        subtitle: spec.subtitle ?? null,
        isBanner: spec.banner !== undefined,
        bannerImage: null,
        bannerUrl: spec.banner?.url ?? null,
        bannerCta: spec.banner?.cta ?? null,
        smallBoxes: (spec.boxes ?? []).map(([title, url, cta], i) => ({
          title,
          url,
          cta,
          color: PALETTE[i % PALETTE.length] ?? "#0b5394",
        })),
      };
    }),
  );
}

// ---------------------------------------------------------------- contact boxes

const CONTACT_AREA = "dashboard_contatti";

export type ContactBoxSeed = { areaCode: string; position: number; title: string; description: string; url: string; cta: string };

export function buildContactBoxes(links: SeedLinks): ContactBoxSeed[] {
  const rows: ReadonlyArray<readonly [title: string, description: string, url: string, cta: string]> = [
    [
      "Assistenza clienti",
      "Problemi con un ordine, un codice di attivazione o la lettura di un eBook? Il nostro servizio clienti ti risponde dal lunedì al venerdì.",
      `${links.mainSite}/contattaci`,
      "Contattaci",
    ],
    [
      "Redazione",
      "Segnalazioni, proposte editoriali e richieste agli autori: la redazione risponde entro 30 giorni.",
      "mailto:redazione@novalex.example",
      "Scrivi alla redazione",
    ],
    [
      "Ufficio adozioni",
      "Sei un docente? Richiedi copie saggio e informazioni sull'adozione dei manuali per i tuoi corsi.",
      `${links.mainSite}/adozioni`,
      "Richiedi informazioni",
    ],
    [
      "Vendite istituzionali",
      "Licenze e abbonamenti per biblioteche, università, uffici giudiziari e pubbliche amministrazioni.",
      `${links.mainSite}/enti-biblioteche`,
      "Richiedi un'offerta",
    ],
  ];
  return rows.map(([title, description, url, cta], i) => ({
    areaCode: CONTACT_AREA,
    position: i + 1,
    title,
    description,
    url,
    cta,
  }));
}

// ---------------------------------------------------------------- discover boxes

const DISCOVER: Record<(typeof PROMO_PREFIXES)[number], readonly string[]> = {
  dashboard_studenti: ["pf04", "pf05", "pf01", "pf07", "pf08", "pf16-eb", "eb11", "eb12"],
  dashboard_docenti: ["pf10", "pf11", "pf12", "ph08", "ph09", "pf06", "pf09"],
  dashboard_professionisti: ["ph01", "ph02", "ph03", "ph05", "pf14", "pf13", "eb04", "eb07", "ph10"],
};

export type DiscoverBoxSeed = { areaCode: string; position: number; isbn: string };

export function buildDiscoverBoxes(products: ReadonlyMap<string, ProductSeed>): DiscoverBoxSeed[] {
  return PROMO_PREFIXES.flatMap((areaCode) =>
    DISCOVER[areaCode].map((key, i) => {
      const isbn = products.get(key)?.isbn;
      if (!isbn) throw new Error(`Discover box ${areaCode}: product ${key} has no ISBN`);
      return { areaCode, position: i + 1, isbn };
    }),
  );
}
