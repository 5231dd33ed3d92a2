// The Italian messages of the spec (§5, §8) that forms show and tests assert: one place.
import { COMMUNICATION_FAILURE } from "./communication-failure.ts";
export const MESSAGES = {
  // Activation modal 'ESPANDI IL LIBRO' (spec §4, §8: an invalid code gets the invalid mark only).
  activationTitle: "ESPANDI IL LIBRO",
  activationAlreadyRedeemed: "Hai già attivato questo codice: trovi il prodotto nella tua dashboard.",
  activationCodeInvalid: "Codice non valido",
  productActivated: "Prodotto attivato",
  firstnameRequired: "Nome obbligatorio",
  lastnameRequired: "Cognome obbligatorio",
  emailRequired: "Email obbligatoria",
  emailInvalid: "Inserisci un indirizzo email valido",
  passwordRequired: "Password obbligatoria",
  passwordRule: "La password non rispetta i requisiti",
  termsRequired: "Devi accettare i termini e le condizioni",
  emailTaken: "Email già registrata",
  emailTakenText:
    "L'email con cui stai cercando di registrati è gia presente nel nostro database. Vai alla pagina login per accedere.",
  loginPage: "Pagina Login",
  /** One answer for unknown e-mail, wrong password and a locked account. */
  invalidCredentials: "Email o password non corretti",
  /**
   * Shown under every refused sign-in, so that it says nothing about the address typed: the
   * owner of an account migrated from the old shop learns where their password link is.
   */
  migratedAccountHint:
    "Se il tuo account proviene dal nostro precedente negozio online, ti abbiamo inviato un'email con il link per impostare una nuova password: controlla la tua casella di posta.",
  tooManyAttempts: "Troppi tentativi. Riprova tra qualche minuto.",
  signInFailed: "Sign-in failed",
  signOutFailed: "Sign-out failed",
  // Profile: first access, 'Il mio account', preferences, account deletion (spec §5, §8).
  professionRequired: "Seleziona la tua professione",
  universityRequired: "Seleziona l'università",
  degreeCourseRequired: "Seleziona il corso di laurea",
  subjectRequired: "Seleziona la materia",
  interestsRequired: "Seleziona almeno un interesse",
  degreeCourseMismatch: "Il corso di laurea scelto non appartiene all'università selezionata",
  invalidChoice: "Scelta non valida: selezionane una dall'elenco",
  professionLocked: "La professione non può essere modificata.",
  emailInUse: "Questa email è già associata a un altro account",
  // E-mail change on the account page: confirmed by a link sent to the new address.
  currentPasswordHint: "Serve solo se cambi l'email: ti invieremo un link per confermare il nuovo indirizzo.",
  currentPasswordForEmail: "Per cambiare l'email inserisci la password attuale",
  emailChangeSent: "Ti abbiamo inviato un link al nuovo indirizzo: l'email cambierà quando lo aprirai.",
  emailChangeTooMany: "Troppe richieste di cambio email.",
  emailConfirmTitle: "Conferma il nuovo indirizzo email",
  emailConfirmText: "Conferma per usare questo indirizzo email per il tuo account Novalex Editore.",
  emailConfirmed: "Email aggiornata",
  emailConfirmedText: "Da ora il tuo account usa il nuovo indirizzo email, anche per accedere.",
  emailLinkExpiredText:
    "Il link per confermare il nuovo indirizzo vale 24 ore e si può usare una sola volta. Per riprovare, cambia di nuovo l'email dal tuo account.",
  mobileInvalid: "Inserisci un numero di cellulare valido",
  fieldTooLong: "Il testo inserito è troppo lungo",
  /** Fallbacks of every form (lib/form-reply.server): a check written without a message of its own. */
  fieldRequired: "Campo obbligatorio",
  fieldInvalid: "Valore non valido",
  /** A NUL or a lone surrogate (shared/stored-text.ts): shown beside the field on a page. */
  fieldCharacters: "Il campo contiene caratteri non validi",
  /** The same in the API, whose answer is not beside the field: it names it as the body does. */
  fieldCharactersNamed: (field: string) => `Il campo ${field} contiene caratteri non validi`,
  profileUpdated: "Profilo aggiornato",
  profileNoChanges: "Nessuna modifica da salvare",
  preferencesUpdated: "Preferenze aggiornate",
  /** The alert of a refused profile or preferences save (spec §8), with the description below. */
  errorTitle: "Errore",
  profileInvalid: "Alcuni dati non sono validi: correggi i campi indicati e salva di nuovo.",
  profileIncomplete: "Completa la professione e i relativi dati prima di salvare.",
  profileAlreadyCompleted: "Il profilo è già stato completato.",
  accountNotFound: "Account non trovato: accedi di nuovo e riprova.",
  deleteUserConfirmed: "Cancellazione utente confermata",
  deleteUserFailed: "Non è stato possibile cancellare l'account. Riprova più tardi.",
  // Password: forgotten, reset by link (both variants), change from the profile (spec §5, §8).
  resetRequestSent: "Richiesta inviata, controlla la tua casella email",
  emailNotFound: "Email non trovata",
  emailNotFoundText:
    "Non esiste un account con questo indirizzo email. Controlla di averlo scritto correttamente oppure crea un nuovo account.",
  tooManyRequests: "Troppe richieste",
  tooManyResetRequestsText: "Per sicurezza non abbiamo inviato nessuna email.",
  communicationError: COMMUNICATION_FAILURE.title,
  communicationErrorText: COMMUNICATION_FAILURE.text,
  linkExpired: "Ooops. il tuo link è scaduto!",
  passwordNotSet: "Password non impostata",
  passwordNotSetText: "La sessione è scaduta, prova a richiedere di nuovo il cambio della password",
  passwordConfirmationRequired: "Conferma la nuova password",
  passwordMismatch: "Le password non coincidono",
  passwordUpdated: "Password aggiornata",
  /** The alert of a refused password change (spec §8), with the reason below. */
  passwordChangeFailed: "Si è verificato un errore",
  currentPasswordRequired: "Password attuale obbligatoria",
  currentPasswordWrong: "La password attuale non è corretta",
  currentPasswordLocked: "Troppi tentativi con una password errata.",
  /** The account console (profile/sessions and 'Scarica i tuoi dati'). */
  deviceSignedOut: "Sei uscito dal dispositivo",
  otherDevicesSignedOut: "Sei uscito da tutti gli altri dispositivi",
  deviceAlreadySignedOut: "Quell'accesso era già terminato",
  appSignedOut: "Sei uscito dall'app",
  dataExportTooMany: "Hai già scaricato i tuoi dati più volte nell'ultima ora.",
  /** How long to wait before trying again, from a rate limit's retry time. */
  retryAfter: (seconds: number) => {
    const minutes = Math.max(1, Math.ceil(seconds / 60));
    return minutes === 1 ? "Riprova tra un minuto." : `Riprova tra ${minutes} minuti.`;
  },
} as const;
