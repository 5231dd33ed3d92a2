// /profile/ — 'Il mio account' (spec §2, §3, §5, §8): names, e-mail, mobile, the profession (set
// once, then shown disabled) and its branch: university and degree course for students,
// university and subject for professors, interests for other professionals. The username
// ('Utente', the e-mail) is shown read-only and never sent. The server writes only what
// changed and refuses an incomplete profile; with JavaScript the Save button is also disabled
// while the form is incomplete, and the degree courses follow the chosen university.
import { useState } from "react";
import { Form, Link, redirect } from "react-router";
import { z } from "zod";
import { requestContext, servicesContext } from "#shared/context.ts";
import type { ProfileSubmission } from "#server/accounts/profile.ts";
import { PROFILE_LIMITS } from "#shared/profile-limits.ts";
import { accountFields } from "#shared/account-rules.server.ts";
import {
  CHANGE_PASSWORD_PATH,
  DASHBOARD_PATH,
  FIRST_ACCESS_PATH,
  LOGIN_PATH,
  PREFERENCES_PATH,
  PROFILE_PATH,
  SESSIONS_PATH,
} from "#shared/links.ts";
import type { ProfessionCode } from "#server/catalog/reference.ts";
import type { Route } from "./+types/profile";
import { AlertBox, InterestChoices, SelectField, TextField } from "#app/components/form-fields.tsx";
import { customerOf } from "#app/lib/customer.server.ts";
import { readReply, type ReplyView } from "#app/lib/form-reply.ts";
import { parseForm, refuse, secret } from "#app/lib/form-reply.server.ts";
import { MESSAGES } from "#shared/messages.ts";
import { profileFieldErrors, profileSaveRefusal, type ProfileFormField } from "#shared/profile-messages.ts";
import { redirectWithToast } from "#app/lib/toast.server.ts";
import { useHydrated } from "#app/lib/use-hydrated.ts";
import { BackLink } from "#app/components/back-link.tsx";
import { PageHeading } from "#app/components/page-heading.tsx";

type Field = ProfileFormField | "currentPassword";

export async function loader({ context }: Route.LoaderArgs) {
  const { user } = customerOf(context);
  const { profiles, reference } = context.get(servicesContext);
  const profile = await profiles.get(user.id);
  if (!profile) throw redirect(LOGIN_PATH);
  // The long lists travel only to a form that can show them: a profession once chosen is fixed,
  // and its branch alone is shown; a profile without one may show every branch. (The interests,
  // a short list, always travel.)
  const branch = branchFields(profile.professionCode ?? "all");
  const [professions, universities, degreeCourses, subjects, interests] = await Promise.all([
    reference.professions(),
    branch.university ? reference.universities() : [],
    branch.course ? reference.allDegreeCourses() : [],
    branch.subject ? reference.subjects() : [],
    reference.interests(),
  ]);
  // The limits travel with the data: the server module itself must stay out of the browser bundle.
  return { profile, professions, universities, degreeCourses, subjects, interests, limits: PROFILE_LIMITS };
}

const text = (max: number) => z.string().max(max, MESSAGES.fieldTooLong).optional();
const id = z.string().trim().max(64, MESSAGES.invalidChoice).optional();
const profileSchema = z.object({
  firstname: text(PROFILE_LIMITS.name),
  lastname: text(PROFILE_LIMITS.name),
  // Emptied, the address is left to the service, which refuses it with the other emptied fields.
  email: z.string().trim().pipe(z.literal("").or(accountFields.email)).optional(),
  mobile: z.string().max(40, MESSAGES.mobileInvalid).optional(),
  profession: id,
  university: id,
  degreeCourse: id,
  subject: id,
  interests: z.array(z.string().trim().max(64, MESSAGES.invalidChoice)).max(100).optional(),
  currentPassword: secret(z.string().max(200, MESSAGES.currentPasswordWrong).optional()),
});

export async function action({ request, context }: Route.ActionArgs) {
  const { user } = customerOf(context);
  const services = context.get(servicesContext);
  const { ip } = context.get(requestContext);
  // The interests are part of the form only when shown (a marker says so: no box ticked is a choice too).
  const parsed = await parseForm(request, profileSchema, { shownBy: { interests: "interestsShown" } });
  // 'Errore' with the description (spec §8), each field's message beside it, and what was typed.
  const refuseWith = (fieldErrors: Partial<Record<Field, string>>, description: string, status = 400) =>
    refuse({ fieldErrors, alert: { title: MESSAGES.errorTitle, text: description }, values: parsed.values }, status);

  if (!parsed.ok) return refuseWith(parsed.reply.fieldErrors ?? {}, MESSAGES.profileInvalid);
  const v = parsed.data;

  // A new address needs the current password and is confirmed by a link sent to it: nothing is
  // saved unless the password is right, and the answer is the same whether or not the address
  // belongs to another account.
  let sendEmailChange: (() => Promise<{ sent: boolean }>) | null = null;
  if (v.email) {
    const started = await services.emailChanges.start({
      userId: user.id,
      currentPassword: v.currentPassword ?? "",
      newEmail: v.email,
      ip,
    });
    if (!started.ok) {
      switch (started.reason) {
        case "not_found":
          throw redirect(LOGIN_PATH);
        case "password_required":
          return refuseWith({ currentPassword: MESSAGES.currentPasswordForEmail }, MESSAGES.currentPasswordForEmail);
        case "wrong_password":
          return refuseWith({ currentPassword: MESSAGES.currentPasswordWrong }, MESSAGES.currentPasswordWrong);
        case "locked":
          return refuseWith(
            { currentPassword: MESSAGES.currentPasswordLocked },
            `${MESSAGES.currentPasswordLocked} ${MESSAGES.retryAfter(started.retryAfterSeconds)}`,
            429,
          );
        case "throttled":
          return refuseWith({}, `${MESSAGES.emailChangeTooMany} ${MESSAGES.retryAfter(started.retryAfterSeconds)}`, 429);
      }
    }
    sendEmailChange = started.send;
  }

  const submission: ProfileSubmission = {
    firstname: v.firstname,
    lastname: v.lastname,
    email: v.email,
    mobile: v.mobile,
    professionId: v.profession,
    universityId: v.university,
    degreeCourseId: v.degreeCourse,
    subjectId: v.subject,
    interestIds: v.interests,
  };
  const result = await services.profiles.update(user.id, submission);
  if (result.ok) {
    if (sendEmailChange) {
      const { sent } = await sendEmailChange();
      return redirectWithToast(
        context,
        PROFILE_PATH,
        sent
          ? { type: "success", title: MESSAGES.profileUpdated, message: MESSAGES.emailChangeSent }
          : { type: "error", title: MESSAGES.communicationError, message: MESSAGES.communicationErrorText },
      );
    }
    return redirectWithToast(
      context,
      PROFILE_PATH,
      result.changed.length > 0
        ? { type: "success", title: MESSAGES.profileUpdated }
        : { type: "info", title: MESSAGES.profileNoChanges },
    );
  }
  // The message and the status are the table's, the API's user/save too.
  const { message, status } = profileSaveRefusal(result);
  return refuseWith(result.reason === "invalid" ? profileFieldErrors(result.errors) : {}, message, status);
}

export { clientAction, shouldRevalidate } from "#app/lib/form-route.ts";

export default function Profile({ loaderData, actionData }: Route.ComponentProps) {
  const reply = readReply(actionData);
  // A new render of the stored profile or of a refused submission starts the form afresh.
  return <ProfileForm key={JSON.stringify(reply.values ?? loaderData.profile)} data={loaderData} reply={reply} />;
}

/**
 * The fields of a profession's branch (spec §5): university and degree course for students,
 * university and subject for professors, interests for other professionals; "all" when no
 * profession is chosen yet and the form cannot follow the choice, "none" when it can.
 */
function branchFields(of: ProfessionCode | "all" | "none") {
  const shownFor = (...codes: ProfessionCode[]) => of === "all" || (codes as string[]).includes(of);
  return {
    university: shownFor("student", "professor"),
    course: shownFor("student"),
    subject: shownFor("professor"),
    interests: shownFor("other"),
  };
}

function ProfileForm({ data: loaded, reply }: { data: Route.ComponentProps["loaderData"]; reply: ReplyView<Field> }) {
  const { profile, professions, universities, degreeCourses, subjects, interests, limits } = loaded;
  const hydrated = useHydrated();
  const { error } = reply;

  const professionLocked = profile.professionId !== null;
  const [professionId, setProfessionId] = useState(professionLocked ? profile.professionId! : (reply.value("profession") ?? ""));
  const [universityId, setUniversityId] = useState(reply.value("university") ?? profile.universityId ?? "");
  const [degreeCourseId, setDegreeCourseId] = useState(reply.value("degreeCourse") ?? profile.degreeCourseId ?? "");
  const [subjectId, setSubjectId] = useState(reply.value("subject") ?? profile.subjectId ?? "");
  const checkedInterests = new Set(reply.list("interests") ?? profile.interestIds);

  const code = (professions.find((p) => p.id === professionId)?.code ?? null) as ProfessionCode | null;
  // Without JavaScript a profile that has no profession yet shows every branch: the server keeps
  // only the one of the chosen profession.
  const showAll = !hydrated && code === null;
  const shown = branchFields(code ?? (showAll ? "all" : "none"));

  const complete =
    code !== null &&
    (code !== "student" || (universityId !== "" && degreeCourseId !== "")) &&
    (code !== "professor" || (universityId !== "" && subjectId !== ""));
  const saveDisabled = hydrated && !complete;

  // With JavaScript only the chosen university's courses are offered; without it they are
  // grouped by university and the server checks the pair.
  const courseGroups = universities
    .filter((u) => (hydrated ? u.id === universityId : true))
    .map((u) => ({ id: u.id, name: u.name, options: degreeCourses.filter((c) => c.universityId === u.id) }))
    .filter((g) => g.options.length > 0);

  const input = (
    name: "firstname" | "lastname" | "email" | "mobile",
    label: string,
    type: "text" | "email" | "tel",
    autoComplete: string,
  ) => (
    <TextField
      label={label}
      type={type}
      autoComplete={autoComplete}
      required={name !== "mobile"}
      optionalNote={name === "mobile" ? "facoltativo" : undefined}
      maxLength={name === "email" ? limits.email : name === "mobile" ? limits.mobile : limits.name}
      {...reply.field(name, profile[name] ?? "")}
    />
  );

  return (
    <section className="mx-auto max-w-3xl px-4 py-10">
      <BackLink to={DASHBOARD_PATH}>Torna alla dashboard</BackLink>
      <PageHeading title="Il mio account" className="mt-4" />
      <nav aria-label="Impostazioni account" className="mt-3 flex flex-wrap gap-4 text-sm">
        <Link to={PREFERENCES_PATH} className="link">
          Preferenze
        </Link>
        <Link to={CHANGE_PASSWORD_PATH} className="link">
          Cambio password
        </Link>
        <Link to={SESSIONS_PATH} className="link">
          Dove hai effettuato l'accesso
        </Link>
      </nav>

      <AlertBox alert={reply.alert} />
      {!professionLocked && (
        <p role="status" className="mt-6 rounded-md border border-gold bg-white p-4 text-sm">
          Indica la tua professione per completare il profilo, oppure{" "}
          <Link to={FIRST_ACCESS_PATH} className="link">
            completa il profilo passo per passo
          </Link>
          .
        </p>
      )}

      <Form method="post" noValidate className="card mt-6 space-y-8 p-6 md:p-8">
        <fieldset className="space-y-5">
          <legend className="font-serif text-xl font-bold text-brand">Dati personali</legend>
          <div>
            <label htmlFor="username" className="block text-sm font-semibold">
              Utente
            </label>
            {/* Shown only: no name, so the username is never sent. */}
            <input
              id="username"
              type="text"
              readOnly
              value={profile.email}
              aria-describedby="username-hint"
              className="field bg-paper text-muted"
            />
            <p id="username-hint" className="mt-1 text-xs text-muted">
              Il nome utente non può essere modificato.
            </p>
          </div>
          <div className="grid gap-5 md:grid-cols-2">
            {input("firstname", "Nome", "text", "given-name")}
            {input("lastname", "Cognome", "text", "family-name")}
          </div>
          <div className="grid gap-5 md:grid-cols-2">
            {input("email", "Email", "email", "email")}
            {input("mobile", "Cellulare", "tel", "tel")}
          </div>
          <div className="md:w-1/2 md:pr-2.5">
            <TextField
              label="Password attuale"
              type="password"
              autoComplete="current-password"
              required={false}
              optionalNote="per cambiare l'email"
              hint={MESSAGES.currentPasswordHint}
              {...reply.field("currentPassword")}
            />
          </div>
        </fieldset>

        <fieldset className="space-y-5">
          <legend className="font-serif text-xl font-bold text-brand">Profilo professionale</legend>
          <SelectField
            name="profession"
            label="Professione"
            placeholder="Seleziona la professione"
            options={professions}
            disabled={professionLocked}
            value={professionId}
            onChange={setProfessionId}
            hint={professionLocked ? MESSAGES.professionLocked : undefined}
            error={error("profession")}
          />

          {shown.university && (
            <SelectField
              name="university"
              label="Università"
              note={showAll ? "studenti e docenti" : undefined}
              placeholder="Seleziona l'università"
              options={universities}
              value={universityId}
              onChange={(chosen) => {
                setUniversityId(chosen);
                // The course belonged to the previous university.
                if (degreeCourses.find((c) => c.id === degreeCourseId)?.universityId !== chosen) setDegreeCourseId("");
              }}
              error={error("university")}
            />
          )}

          {shown.course && (
            <SelectField
              name="degreeCourse"
              label="Corso di laurea"
              note={showAll ? "studenti" : undefined}
              placeholder={hydrated && !universityId ? "Seleziona prima l'università" : "Seleziona il corso di laurea"}
              options={courseGroups.flatMap((g) => g.options)}
              groups={hydrated ? undefined : courseGroups}
              value={degreeCourseId}
              onChange={setDegreeCourseId}
              hint={hydrated ? undefined : "Scegli un corso della tua università: i corsi sono raggruppati per ateneo."}
              error={error("degreeCourse")}
            />
          )}

          {shown.subject && (
            <SelectField
              name="subject"
              label="Materia"
              note={showAll ? "docenti" : undefined}
              placeholder="Seleziona la materia"
              options={subjects}
              value={subjectId}
              onChange={setSubjectId}
              error={error("subject")}
            />
          )}

          {shown.interests && (
            <>
              <input type="hidden" name="interestsShown" value="1" />
              <InterestChoices
                compact
                legend={<>Interessi{showAll && <span className="font-normal text-muted"> (professionisti)</span>}</>}
                interests={interests}
                checked={checkedInterests}
                error={error("interests")}
              />
            </>
          )}
        </fieldset>

        <div className="flex flex-wrap items-center gap-3">
          <button
            type="submit"
            disabled={saveDisabled}
            aria-describedby={saveDisabled ? "save-hint" : undefined}
            className={saveDisabled ? "button-primary button-disabled px-6 py-3 text-base" : "button-primary px-6 py-3 text-base"}
          >
            Salva
          </button>
          {saveDisabled && (
            <p id="save-hint" className="text-sm text-muted">
              {MESSAGES.profileIncomplete}
            </p>
          )}
        </div>
      </Form>
    </section>
  );
}
