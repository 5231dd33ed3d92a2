// The parts of the checkout's form (spec §2): customer, shipping and billing data, and the
// payment methods with their panels. Field names are the order's (spec §3) and carry the
// standard autocomplete tokens, so browsers fill them. Which billing fields and which payment
// panel show is decided by CSS from the checked inputs (app.css, "Checkout"), so it works
// without JavaScript; the server checks only what applies.
import type { ReplyView } from "#app/lib/form-reply.ts";
import { CheckboxField, TextField } from "#app/components/form-fields.tsx";
import { formatEuro } from "#shared/euro.ts";
import type { BillingDetails, PostalAddress } from "#server/db/schema/index.ts";

type CheckoutField = string;
type Reply = ReplyView<CheckoutField>;

/** The first and last name an address is for (the parcel's recipient, the invoice's holder). */
function NameFields({
  prefix,
  section,
  names,
  reply,
}: {
  prefix: "shipment" | "billingaddress";
  section: "shipping" | "billing";
  names: { firstname?: string | null; lastname?: string | null } | null;
  reply: Reply;
}) {
  return (
    <>
      <TextField
        label="Nome"
        autoComplete={`section-${section} ${section} given-name`}
        {...reply.field(`${prefix}_firstname`, names?.firstname ?? undefined)}
      />
      <TextField
        label="Cognome"
        autoComplete={`section-${section} ${section} family-name`}
        {...reply.field(`${prefix}_lastname`, names?.lastname ?? undefined)}
      />
    </>
  );
}

/** Name, street, CAP, city, province and the optional 'Presso' and mobile of an address (without the name: `named` false). */
export function AddressFields({
  prefix,
  section,
  address,
  reply,
  named = true,
}: {
  prefix: "shipment" | "billingaddress";
  /** The autocomplete section, so a browser keeps the two addresses apart. */
  section: "shipping" | "billing";
  address: PostalAddress | null;
  reply: Reply;
  named?: boolean;
}) {
  const field = (part: keyof PostalAddress, fallback?: string) =>
    reply.field(`${prefix}_${part}`, fallback ?? (address?.[part] as string | undefined));
  return (
    <div className="grid gap-4 sm:grid-cols-2">
      {named && <NameFields prefix={prefix} section={section} names={address} reply={reply} />}
      <div className="sm:col-span-2">
        <TextField
          label="Indirizzo (via e numero civico)"
          autoComplete={`section-${section} ${section} street-address`}
          {...field("address")}
        />
      </div>
      <TextField
        label="CAP"
        inputMode="numeric"
        maxLength={5}
        autoComplete={`section-${section} ${section} postal-code`}
        {...field("postcode")}
      />
      <TextField label="Città" autoComplete={`section-${section} ${section} address-level2`} {...field("city")} />
      <TextField
        label="Provincia (sigla)"
        maxLength={2}
        placeholder="MI"
        autoComplete={`section-${section} ${section} address-level1`}
        {...field("province")}
      />
      <TextField label="Presso" required={false} optionalNote="facoltativo" {...field("at")} />
      <TextField
        label="Cellulare"
        type="tel"
        required={false}
        optionalNote="facoltativo"
        autoComplete={`section-${section} ${section} tel`}
        {...field("mobile")}
      />
    </div>
  );
}

/**
 * Billing (optional): company, private person or association (a Codice Fiscale of 11 digits, with
 * its Denominazione), the name the invoice is made out to, and an address of its own or the
 * shipping one's place. Without saved details the name is the customer's.
 */
export function BillingFields({
  billing,
  save,
  hasShipment,
  customer,
  reply,
}: {
  billing: BillingDetails | null;
  save: boolean;
  hasShipment: boolean;
  customer: { firstname: string | null; lastname: string | null };
  reply: Reply;
}) {
  const typed = reply.values !== undefined;
  const checked = (name: string, stored: boolean) => (typed ? reply.value(name) !== undefined : stored);
  const isCompany = typed ? reply.value("billing_iscompany") === "1" : (billing?.isCompany ?? false);
  const value = (name: string, stored?: string) => reply.field(name, stored);
  return (
    <fieldset className="checkout-billing card space-y-4 p-5">
      <legend className="px-1 font-serif text-lg font-bold text-brand">Fatturazione</legend>
      <CheckboxField name="hasbilling" defaultChecked={checked("hasbilling", billing !== null)}>
        Voglio la fattura
      </CheckboxField>
      <div className="checkout-billing-details space-y-4">
        <fieldset>
          <legend className="text-sm font-semibold">Intestata a</legend>
          <div className="mt-2 flex gap-6">
            <label className="flex items-center gap-2">
              <input type="radio" name="billing_iscompany" value="0" defaultChecked={!isCompany} /> Privato
            </label>
            <label className="flex items-center gap-2">
              <input type="radio" name="billing_iscompany" value="1" defaultChecked={isCompany} /> Azienda o professionista
            </label>
          </div>
        </fieldset>
        <div className="checkout-company grid gap-4 sm:grid-cols-2">
          <div className="sm:col-span-2">
            <TextField label="Ragione Sociale" autoComplete="organization" {...value("billing_name", billing?.name)} />
          </div>
          <TextField label="Partita IVA" inputMode="numeric" maxLength={13} {...value("billing_vat", billing?.vat)} />
          <TextField label="Codice Univoco SDI" maxLength={7} {...value("billing_sdi", billing?.sdi)} />
        </div>
        <div className="checkout-private grid gap-4 sm:grid-cols-2">
          <TextField label="Codice Fiscale" maxLength={16} {...value("billing_ssn", billing?.ssn)} />
          <TextField
            label="Denominazione"
            required={false}
            optionalNote="enti e associazioni"
            hint="Se il Codice Fiscale è di 11 cifre: la fattura è intestata all'ente o all'associazione."
            {...value("billing_denomination", billing && !billing.isCompany ? billing.name : undefined)}
          />
        </div>
        <TextField label="PEC" type="email" required={false} optionalNote="facoltativa" {...value("billing_pec", billing?.pec)} />
        <fieldset>
          <legend className="text-sm font-semibold">Intestatario della fattura</legend>
          <div className="mt-2 grid gap-4 sm:grid-cols-2">
            <NameFields prefix="billingaddress" section="billing" names={billing?.address ?? customer} reply={reply} />
          </div>
        </fieldset>
        {hasShipment && (
          <CheckboxField
            name="billingaddress_asshipment"
            defaultChecked={checked("billingaddress_asshipment", billing?.addressAsShipment ?? true)}
          >
            L'indirizzo di fatturazione è quello di spedizione
          </CheckboxField>
        )}
        <div className={hasShipment ? "checkout-billing-address space-y-2" : "space-y-2"}>
          <p className="text-sm font-semibold">Indirizzo di fatturazione</p>
          <AddressFields
            prefix="billingaddress"
            section="billing"
            address={billing?.address ?? null}
            reply={reply}
            named={false}
          />
        </div>
        <CheckboxField name="billing_save" defaultChecked={checked("billing_save", save)}>
          Salva i dati di fatturazione per i prossimi acquisti
        </CheckboxField>
      </div>
    </fieldset>
  );
}

const HUBS = [
  { value: "card", label: "Carta di Credito" },
  { value: "sepa", label: "Bonifico bancario" },
  { value: "instalments", label: "Pagamento in 3 rate" },
  { value: "student_card", label: "Carta dello studente" },
] as const;

/** The bank details shown on the transfer panel: placeholders (spec §2), as the shop gives none yet. */
const BANK_TRANSFER = { iban: "IT00 X000 0000 0000 0000 0000 000", holder: "Novalex Editore S.r.l.", bank: "Banca di esempio" };
const INSTALMENTS = 3;

/** The four payment methods as radio buttons, each with its panel; only the card completes a purchase. */
export function PaymentMethods({
  hub,
  resetKey,
  orderCode,
  amountCents,
  cardPanel,
  error,
}: {
  hub: string;
  /**
   * Changes when a refused form comes back: the radio buttons take the choice it holds again; the
   * card panel (Stripe's widget, with what the customer typed in it) stays as it is.
   */
  resetKey: string;
  orderCode: string;
  /** Total plus shipping: what the bank transfer asks for (spec §2). */
  amountCents: number;
  cardPanel: React.ReactNode;
  error?: string;
}) {
  return (
    <fieldset className="checkout-hubs card p-5" aria-describedby={error ? "paymenthub-error" : undefined}>
      <legend className="px-1 font-serif text-lg font-bold text-brand">Metodo di pagamento</legend>
      <div className="space-y-3">
        {HUBS.map((h) => (
          <div key={h.value} className="rounded-md border border-line p-3">
            <label className="flex items-center gap-2 font-semibold">
              <input
                key={resetKey}
                type="radio"
                name="paymenthub"
                value={h.value}
                id={`hub-${h.value}`}
                defaultChecked={hub === h.value}
              />
              {h.label}
            </label>
            <div className={`checkout-hub-panel checkout-hub-${h.value} mt-3 text-sm`}>
              {h.value === "card" && cardPanel}
              {h.value === "sepa" && (
                <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1">
                  <dt className="text-muted">IBAN</dt>
                  <dd className="font-mono">{BANK_TRANSFER.iban}</dd>
                  <dt className="text-muted">Intestatario</dt>
                  <dd>{BANK_TRANSFER.holder}</dd>
                  <dt className="text-muted">Banca</dt>
                  <dd>{BANK_TRANSFER.bank}</dd>
                  <dt className="text-muted">Importo</dt>
                  <dd>{formatEuro(amountCents)}</dd>
                  <dt className="text-muted">Causale</dt>
                  <dd>Pagamento ordine n° {orderCode}</dd>
                </dl>
              )}
              {h.value === "instalments" && (
                <p>
                  {INSTALMENTS} rate da {formatEuro(Math.ceil(amountCents / INSTALMENTS))} senza interessi. Servizio non ancora
                  disponibile: per completare l'acquisto scegli la carta di credito.
                </p>
              )}
              {h.value === "student_card" && (
                <p>La carta dello studente non è ancora accettata: per completare l'acquisto scegli la carta di credito.</p>
              )}
            </div>
          </div>
        ))}
      </div>
      {error && (
        <p id="paymenthub-error" className="field-error">
          {error}
        </p>
      )}
    </fieldset>
  );
}
