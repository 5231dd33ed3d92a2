// /profilo/primoaccesso/ — first-access profile completion (spec §2, §4, §5). Step 1 the
// profession; then student: university, then degree course; professor: university, then
// subject; other professional: interests. Each step is a GET that the server renders from the
// address (?profession=<id>&university=<id>), so it works without JavaScript; 'Completa' posts
// everything, the server validates it all again and saves it in one transaction.
import { Form, Link, redirect } from "react-router";
import { MINIMAL_CHROME } from "#app/lib/page-chrome.ts";
import { z } from "zod";
import { servicesContext } from "#shared/context.ts";
import type { ProfessionCode } from "#server/catalog/reference.ts";
import type { Route } from "./+types/first-access";
import { AlertBox, FieldError, InterestChoices, SelectField } from "#app/components/form-fields.tsx";
import { customerOf } from "#app/lib/customer.server.ts";
import { readReply } from "#app/lib/form-reply.ts";
import { parseForm, refuse } from "#app/lib/form-reply.server.ts";
import { MESSAGES } from "#shared/messages.ts";
import { profileFieldErrors } from "#shared/profile-messages.ts";
import { redirectWithToast } from "#app/lib/toast.server.ts";
import { FIRST_ACCESS_PATH, HOME_PATH } from "#shared/links.ts";
import { PageHeading } from "#app/components/page-heading.tsx";

export const handle = MINIMAL_CHROME;

const PATH = FIRST_ACCESS_PATH;

type Step = "profession" | "university" | "details";
/** The messages of the steps that are GET forms (the loader checks them). */
type StepErrors = Partial<Record<"profession" | "university", string>>;

/** Short descriptions of the professions' choices, by code. */
const PROFESSION_HINTS: Record<ProfessionCode, string> = {
  student: "Studi giurisprudenza o un corso di laurea in materie giuridiche",
  professor: "Insegni in un'università",
  other: "Avvocato, notaio, magistrato, consulente o altra professione legale",
};

export async function loader({ request, context }: Route.LoaderArgs) {
  const { user } = customerOf(context);
  if (user.professionId) throw redirect(HOME_PATH);
  const { reference } = context.get(servicesContext);
  const query = new URL(request.url).searchParams;
  const errors: StepErrors = {};

  const professions = await reference.professions({ firstAccess: true });
  const professionParam = query.get("profession")?.trim() ?? "";
  const profession = professions.find((p) => p.id === professionParam.toLowerCase()) ?? null;
  if (query.get("from") === "profession" && !profession) {
    errors.profession = professionParam ? MESSAGES.invalidChoice : MESSAGES.professionRequired;
  }
  const code = (profession?.code ?? null) as ProfessionCode | null;
  const needsUniversity = code === "student" || code === "professor";

  const universities = needsUniversity ? await reference.universities() : [];
  const universityParam = query.get("university")?.trim() ?? "";
  const university = universities.find((u) => u.id === universityParam.toLowerCase()) ?? null;
  if (needsUniversity && query.get("from") === "university" && !university) {
    errors.university = universityParam ? MESSAGES.invalidChoice : MESSAGES.universityRequired;
  }

  const requested = query.get("step");
  let step: Step = "details";
  if (!profession || requested === "profession") step = "profession";
  else if (needsUniversity && (!university || requested === "university")) step = "university";

  return {
    step,
    professions,
    profession,
    universities,
    university,
    degreeCourses: step === "details" && code === "student" ? await reference.degreeCourses(university?.id) : [],
    subjects: step === "details" && code === "professor" ? await reference.subjects() : [],
    interests: step === "details" && code === "other" ? await reference.interests({ firstAccess: true }) : [],
    errors,
  };
}

const idField = z.string().trim().max(64).optional();
const firstAccessSchema = z.object({
  profession: idField,
  university: idField,
  degreeCourse: idField,
  subject: idField,
  interests: z.array(z.string().trim().max(64)).max(100),
});

export async function action({ request, context }: Route.ActionArgs) {
  const { user } = customerOf(context);
  if (user.professionId) throw redirect(HOME_PATH);
  const parsed = await parseForm(request, firstAccessSchema);
  const errorAlert = (text: string) => ({ title: MESSAGES.errorTitle, text });
  // Only a tampered form gets here: no field is to blame on the page.
  if (!parsed.ok) return refuse({ alert: errorAlert(MESSAGES.invalidChoice), values: parsed.values });
  const input = parsed.data;
  const result = await context.get(servicesContext).profiles.completeFirstAccess(user.id, {
    professionId: input.profession,
    universityId: input.university,
    degreeCourseId: input.degreeCourse,
    subjectId: input.subject,
    interestIds: input.interests,
  });
  // Straight to where "/" leads: a toast does not survive the extra redirect of "/".
  if (result.ok) return redirectWithToast(context, HOME_PATH, { type: "success", title: MESSAGES.profileUpdated });
  if (result.reason === "already_completed") throw redirect(HOME_PATH);
  const fieldErrors = profileFieldErrors(result.errors);
  // The profession and the university were chosen at earlier steps (a tampered or outdated
  // form): this step shows them as text, so their message goes above the form.
  const earlier = fieldErrors.profession ?? fieldErrors.university;
  return refuse({ fieldErrors, alert: earlier ? errorAlert(earlier) : undefined, values: parsed.values });
}

export { clientAction, shouldRevalidate } from "#app/lib/form-route.ts";

/** The steps of a profession's first access, named as the step list shows them. */
function stepsOf(code: ProfessionCode | null): { key: Step; label: string }[] {
  return code === "other"
    ? [
        { key: "profession", label: "Professione" },
        { key: "details", label: "Interessi" },
      ]
    : [
        { key: "profession", label: "Professione" },
        { key: "university", label: "Università" },
        { key: "details", label: code === "professor" ? "Materia" : code === "student" ? "Corso di laurea" : "Dettagli" },
      ];
}

/** Each step's own title, so that the browser's history and a screen reader tell them apart. */
function stepTitle(current: Step, code: ProfessionCode | null) {
  const steps = stepsOf(code);
  const index = steps.findIndex((s) => s.key === current);
  return `Completa il tuo profilo: ${steps[index]?.label} (passo ${index + 1} di ${steps.length})`;
}

function StepList({ current, code }: { current: Step; code: ProfessionCode | null }) {
  const steps = stepsOf(code);
  const index = steps.findIndex((s) => s.key === current);
  return (
    <div className="mt-4">
      <p className="text-sm text-muted">
        Passo {index + 1} di {steps.length}
      </p>
      <ol className="mt-2 flex flex-wrap gap-2 text-sm" aria-label="Passaggi">
        {steps.map((s, i) => (
          <li
            key={s.key}
            aria-current={s.key === current ? "step" : undefined}
            className={`rounded-full px-3 py-1 ${s.key === current ? "bg-brand text-white" : i < index ? "bg-brand-light text-brand" : "border border-line text-muted"}`}
          >
            {i + 1}. {s.label}
          </li>
        ))}
      </ol>
    </div>
  );
}

export default function FirstAccess({ loaderData, actionData }: Route.ComponentProps) {
  const { step, professions, profession, universities, university, degreeCourses, subjects, interests } = loaderData;
  const reply = readReply(actionData);
  const error = (name: keyof StepErrors) => reply.error(name) ?? loaderData.errors[name];
  const code = (profession?.code ?? null) as ProfessionCode | null;
  const back = (params: Record<string, string>) => `${PATH}?${new URLSearchParams(params)}`;
  const checkedInterests = new Set(reply.list("interests") ?? []);

  return (
    <section className="mx-auto max-w-2xl px-4 py-12">
      <div className="card p-8">
        <PageHeading title={stepTitle(step, code)} errors={loaderData.errors}>
          Completa il tuo profilo
        </PageHeading>
        <p className="mt-2 text-muted">
          Raccontaci qualcosa di te: ti proporremo i contenuti più adatti ai tuoi studi o al tuo lavoro.
        </p>
        <StepList current={step} code={code} />

        <AlertBox alert={reply.alert} />

        {step === "profession" && (
          <Form method="get" action={PATH} noValidate className="mt-6 space-y-6">
            <input type="hidden" name="from" value="profession" />
            <fieldset aria-describedby={error("profession") ? "profession-error" : undefined}>
              <legend className="text-lg font-semibold">Qual è la tua professione?</legend>
              <div className="mt-3 space-y-3">
                {professions.map((p, index) => (
                  <label
                    key={p.id}
                    className="flex cursor-pointer items-start gap-3 rounded-md border border-line p-4 hover:bg-brand-light"
                  >
                    <input
                      id={index === 0 && error("profession") ? "profession" : undefined}
                      type="radio"
                      name="profession"
                      value={p.id}
                      required
                      defaultChecked={p.id === profession?.id}
                      aria-invalid={error("profession") ? true : undefined}
                      className="mt-1"
                    />
                    <span>
                      <span className="block font-semibold">{p.name}</span>
                      {p.code in PROFESSION_HINTS && (
                        <span className="block text-sm text-muted">{PROFESSION_HINTS[p.code as ProfessionCode]}</span>
                      )}
                    </span>
                  </label>
                ))}
              </div>
              <FieldError id="profession-error" message={error("profession")} />
            </fieldset>
            <button type="submit" className="button-primary px-6 py-3 text-base">
              Continua
            </button>
          </Form>
        )}

        {step === "university" && profession && (
          <Form method="get" action={PATH} noValidate className="mt-6 space-y-6">
            <input type="hidden" name="profession" value={profession.id} />
            <input type="hidden" name="from" value="university" />
            <p>
              Professione: <strong>{profession.name}</strong>
            </p>
            <SelectField
              name="university"
              label={code === "professor" ? "Università in cui insegni" : "La tua università"}
              placeholder="Seleziona l'università"
              options={universities}
              defaultValue={university?.id}
              error={error("university")}
            />
            <div className="flex flex-wrap items-center gap-3">
              <Link to={back({ profession: profession.id, step: "profession" })} className="button-outline">
                Indietro
              </Link>
              <button type="submit" className="button-primary px-6 py-3 text-base">
                Continua
              </button>
            </div>
          </Form>
        )}

        {step === "details" && profession && (
          <Form method="post" noValidate className="mt-6 space-y-6">
            <input type="hidden" name="profession" value={profession.id} />
            {university && <input type="hidden" name="university" value={university.id} />}
            <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm">
              <dt className="text-muted">Professione</dt>
              <dd className="font-semibold">{profession.name}</dd>
              {university && (
                <>
                  <dt className="text-muted">Università</dt>
                  <dd className="font-semibold">{university.name}</dd>
                </>
              )}
            </dl>

            {code === "student" && (
              <SelectField
                label="Corso di laurea"
                placeholder="Seleziona il corso di laurea"
                options={degreeCourses}
                {...reply.field("degreeCourse")}
              />
            )}

            {code === "professor" && (
              <SelectField
                label="Materia che insegni"
                placeholder="Seleziona la materia"
                options={subjects}
                {...reply.field("subject")}
              />
            )}

            {code === "other" && (
              <InterestChoices
                legend="I tuoi interessi"
                interests={interests}
                checked={checkedInterests}
                error={reply.error("interests")}
              />
            )}

            <div className="flex flex-wrap items-center gap-3">
              <Link
                to={
                  university
                    ? back({ profession: profession.id, university: university.id, step: "university" })
                    : back({ profession: profession.id, step: "profession" })
                }
                className="button-outline"
              >
                Indietro
              </Link>
              <button type="submit" className="button-primary px-6 py-3 text-base">
                Completa
              </button>
            </div>
          </Form>
        )}
      </div>
    </section>
  );
}
