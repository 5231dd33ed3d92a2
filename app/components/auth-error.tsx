import { LOGIN_PATH } from "#shared/links.ts";
/** The authentication error screen: 'Oops...' plus the message (spec §2, §8). */
export function AuthError({ message }: { message: "Sign-in failed" | "Sign-out failed" }) {
  return (
    <section className="mx-auto max-w-xl px-4 py-16 text-center">
      <title>Oops... · Novalex Editore</title>
      <h1 className="font-serif text-4xl font-bold text-brand">Oops...</h1>
      <p className="mt-4 text-lg">{message}</p>
      <p className="mt-2 text-muted">Non è stato possibile completare l'operazione. Riprova tra qualche istante.</p>
      <p className="mt-8">
        <a href={LOGIN_PATH} className="button-primary">
          Accedi di nuovo
        </a>
      </p>
    </section>
  );
}
