import { describe, expect, it } from "vitest";
import { ErrorSummary } from "./error-summary";
import { CheckboxField, InterestChoices, SelectField, TextField } from "./form-fields";
import { renderMarkup } from "./test-markup";

/** The first tag `<tag …>` carrying `name="…"`, and one of its attributes. */
const tagNamed = (html: string, tag: string, name: string) =>
  new RegExp(`<${tag}[^>]*\\bname="${name}"[^>]*>`).exec(html)?.[0] ?? "";
const attr = (tag: string, attribute: string) => new RegExp(`\\b${attribute}="([^"]*)"`).exec(tag)?.[1];
/** The texts of the elements a field's aria-describedby names, in its order. */
const descriptions = (html: string, field: string) =>
  (attr(field, "aria-describedby") ?? "")
    .split(" ")
    .filter(Boolean)
    .map((id) => new RegExp(`<[a-z]+ id="${id}"[^>]*>([^<]*)<`).exec(html)?.[1]);

const universities = [
  { id: "u1", name: "Università di Bologna" },
  { id: "u2", name: "Università di Padova" },
];

describe("TextField", () => {
  it("is named by its label, and described by what comes from outside, its hint and its error, in that order", () => {
    const { html } = renderMarkup(
      <form>
        <p id="alert">Controlla i dati</p>
        <TextField name="email" label="Email" describedBy={["alert"]} hint="Quella del tuo account" error="Email obbligatoria" />
        <TextField name="mobile" label="Cellulare" required={false} optionalNote="facoltativo" />
      </form>,
    );
    const email = tagNamed(html, "input", "email");
    const mobile = tagNamed(html, "input", "mobile");
    expect(html).toContain(`<label for="${attr(email, "id")}" class="block text-sm font-semibold">Email</label>`);
    expect(html).toMatch(
      new RegExp(`<label for="${attr(mobile, "id")}"[^>]*>Cellulare<span[^>]*> \\(facoltativo\\)</span></label>`),
    );
    expect(attr(email, "id")).not.toBe(attr(mobile, "id"));
    expect(attr(email, "aria-invalid")).toBe("true");
    expect(descriptions(html, email)).toEqual(["Controlla i dati", "Quella del tuo account", "Email obbligatoria"]);
    expect(attr(mobile, "aria-describedby")).toBeUndefined();
  });
});

describe("SelectField", () => {
  /** The university select of first access, with what a test changes; its markup and the <select> tag. */
  const renderSelect = (props: Partial<Parameters<typeof SelectField>[0]>) => {
    const { html } = renderMarkup(
      <SelectField
        name="university"
        label="La tua università"
        placeholder="Seleziona l'università"
        options={universities}
        {...props}
      />,
    );
    return { html, select: tagNamed(html, "select", "university") };
  };

  it("uncontrolled: the stored choice selected, its error beside it", () => {
    const { html, select } = renderSelect({ defaultValue: "u2", error: "Scegli l'università" });
    expect(html).toContain(`<label for="${attr(select, "id")}" class="block text-sm font-semibold">La tua università</label>`);
    expect(html).toMatch(/<option value="">Seleziona l&#x27;università<\/option>/);
    expect(html).toContain('<option value="u2" selected="">Università di Padova</option>');
    expect(descriptions(html, select)).toEqual(["Scegli l&#x27;università"]);
    expect(select).not.toContain('disabled=""');
  });

  it("controlled and disabled: the choice shown, with its hint, and not posted", () => {
    const { html, select } = renderSelect({
      value: "u1",
      onChange: () => {},
      disabled: true,
      hint: "Non può essere modificata.",
    });
    expect(select).toContain('disabled=""');
    expect(html).toContain('<option value="u1" selected="">Università di Bologna</option>');
    expect(descriptions(html, select)).toEqual(["Non può essere modificata."]);
  });

  it("offers the choices in groups, with a note after the label", () => {
    const groups = universities.map((u) => ({ ...u, options: [{ id: `${u.id}-c`, name: "Giurisprudenza" }] }));
    const { html } = renderSelect({ label: "Corso di laurea", note: "studenti", groups, value: "", onChange: () => {} });
    expect(html).toContain('Corso di laurea<span class="font-normal text-muted"> (studenti)</span></label>');
    expect(html).toContain(
      '<optgroup label="Università di Bologna"><option value="u1-c">Giurisprudenza</option></optgroup><optgroup label="Università di Padova">',
    );
  });
});

describe("CheckboxField", () => {
  it("posts 1 when ticked, and is described by its error", () => {
    const { html } = renderMarkup(
      <CheckboxField name="terms_sales" defaultChecked={false} error="Devi accettare le condizioni di acquisto">
        Accetto le condizioni di vendita
      </CheckboxField>,
    );
    const box = tagNamed(html, "input", "terms_sales");
    expect(attr(box, "value")).toBe("1");
    expect(attr(box, "aria-invalid")).toBe("true");
    expect(descriptions(html, box)).toEqual(["Devi accettare le condizioni di acquisto"]);
  });
});

describe("InterestChoices", () => {
  it("describes the group by its hint, then its error", () => {
    const { html } = renderMarkup(
      <InterestChoices
        legend="I tuoi interessi"
        interests={universities}
        checked={new Set(["u1"])}
        error="Scegli almeno un ambito"
      />,
    );
    const fieldset = /<fieldset[^>]*>/.exec(html)![0];
    expect(descriptions(html, fieldset)).toEqual(["Seleziona almeno un ambito.", "Scegli almeno un ambito"]);
    expect(tagNamed(html, "input", "interests")).toContain('checked=""');
  });
});

describe("ErrorSummary", () => {
  it("lists each refused field's message as a link to that field, under a heading that counts them", () => {
    const { html, text } = renderMarkup(
      <>
        <ErrorSummary errors={{ email: "Email obbligatoria", interests: "Seleziona almeno un interesse", mobile: undefined }} />
        <form>
          <TextField name="email" label="Email" error="Email obbligatoria" />
          <TextField name="mobile" label="Cellulare" />
          <InterestChoices
            legend="Interessi"
            interests={universities}
            checked={new Set()}
            error="Seleziona almeno un interesse"
          />
        </form>
      </>,
    );
    expect(text).toContain("Ci sono 2 errori da correggere");
    for (const name of ["email", "interests"]) {
      expect(html).toContain(`href="#${name}"`);
      expect(html.match(new RegExp(`id="${name}"`, "g"))).toHaveLength(1);
    }
    expect(html).not.toContain('id="mobile"');
  });

  it("is not there when nothing was refused", () => {
    expect(renderMarkup(<ErrorSummary errors={{ email: undefined }} />).html).toBe("");
  });
});
