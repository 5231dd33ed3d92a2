// Spec §8's message for a network or parse failure, which the root shows on every page: in a
// module of its own, so that the root does not load every message of the portal for it.
export const COMMUNICATION_FAILURE = Object.freeze({
  title: "Errore di comunicazione",
  text: "Ti preghiamo di riprovare più tardi",
});
