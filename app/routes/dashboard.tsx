// /dashboard/ — signed-in customers only; a profile without a profession completes first access.
// The library issue builds the real dashboard on this page.
import { redirect } from "react-router";
import type { Route } from "./+types/dashboard";
import { requireUser } from "../lib/auth.server";

export async function loader({ request, context }: Route.LoaderArgs) {
  const { user } = await requireUser(request, context);
  if (!user.professionId) throw redirect("/profilo/primoaccesso/");
  return { firstname: user.firstname };
}

export default function Dashboard({ loaderData }: Route.ComponentProps) {
  return (
    <section className="mx-auto max-w-7xl px-4 py-12">
      <title>La tua area · Novalex Editore</title>
      <h1 className="font-serif text-3xl font-bold text-brand">Ciao{loaderData.firstname ? `, ${loaderData.firstname}` : ""}!</h1>
      <p className="mt-3 text-lg text-ink/80">Benvenuto nella tua area personale.</p>
    </section>
  );
}
