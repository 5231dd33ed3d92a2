import { Form } from "react-router";
import { SandboxNotice } from "./sandbox-notice";

/** The sandbox's 3-D Secure page (a card being set up, or a charge): the customer picks the bank's answer. */
export function SandboxAuthentication() {
  return (
    <section className="mx-auto w-full max-w-md px-4 py-10">
      <title>Autenticazione 3-D Secure · Ambiente di prova</title>
      <SandboxNotice />
      <div className="card p-6">
        <h1 className="mt-1 font-serif text-2xl font-bold text-brand">Autenticazione 3-D Secure</h1>
        <p className="mt-3">
          La tua banca chiede di confermare il pagamento. In questo ambiente di prova scegli tu l'esito: nessun addebito è reale.
        </p>
        <Form method="post" className="mt-6 flex flex-wrap gap-3">
          <button type="submit" name="decision" value="approve" className="button-primary">
            Autorizza
          </button>
          <button type="submit" name="decision" value="deny" className="button-outline">
            Nega
          </button>
        </Form>
      </div>
    </section>
  );
}
