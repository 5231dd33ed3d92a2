// The Italian texts of the reader and of opening a product (spec §3, §4), in one place for the
// pages and the tests that assert them.
import { NO_CHAPTER_STATUS } from "./library-constants.ts";

export const READER_MESSAGES = {
  /** The section an expired customer still sees (spec §4). */
  supplementary: NO_CHAPTER_STATUS,
  accessExpired: "Accesso scaduto",
  accessExpiredText: "Il tuo accesso a questo prodotto è terminato: puoi acquistarlo di nuovo dalla dashboard.",
  buyAgain: "Acquista di nuovo",
  noAccess: "Non hai accesso a questo prodotto",
  noAccessText: "Per leggerlo attiva il codice stampato nel libro oppure acquista il prodotto.",
  unknownChapter: "Il capitolo scelto non esiste in questo volume.",
  requestedChapterMissing: "Il capitolo richiesto non esiste in questo volume: scegline uno dall'indice.",
  noText: "Il testo di questo volume non è ancora disponibile nel lettore.",
} as const;
