// pim: the reference lists of the profile forms (spec §7 getall-*, professione load): public,
// the same cached lists the pages show; and the catalogue's products and product types.
import { z } from "zod";
import type { Config } from "#server/config.ts";
import type { CatalogProduct } from "#server/catalog/products.ts";
import { checkoutPath, coverPath } from "#shared/links.ts";
import { MESSAGES } from "#shared/messages.ts";
import { ApiError } from "#server/api/errors.ts";
import { operationsOf } from "#server/api/operation.ts";
import { euros, idList, millis, toMillis, uuid } from "./fields.ts";

const { publicOperation } = operationsOf("pim");

const option = z.object({ uuid: z.string(), name: z.string() });
const coded = option.extend({ code: z.string() });
const profession = coded.extend({ position: z.number() });

const asOption = ({ id, name }: { id: string; name: string }) => ({ uuid: id, name });
const asProfession = (p: { id: string; name: string; code: string; position: number }) => ({
  ...asOption(p),
  code: p.code,
  position: p.position,
});

const productType = z.object({ uuid: z.string(), code: z.string(), name: z.string() });

/** A product as §3 names its fields, with the addresses a client shows (cover, purchase). */
export const productSchema = z.object({
  uuid: z.string(),
  name: z.string(),
  code: z.string().nullable(),
  sku: z.string(),
  producttype: productType,
  copertina: z.string(),
  copertina_url: z.url(),
  masterproduct: z.string().nullable(),
  moodle_id: z.number().nullable(),
  isbn: z.string().nullable(),
  issn: z.string().nullable(),
  ean: z.string().nullable(),
  url: z.string().nullable(),
  shortauthors: z.string().nullable(),
  edizione: z.string().nullable(),
  periodicita: z.string().nullable(),
  pubdate: millis,
  price: z.number(),
  monthlyprice: z.number().nullable(),
  /** Where the product is bought on the portal; null: it is not sold on its own. */
  buylink: z.url().nullable(),
});

export function productOf(p: CatalogProduct, config: Pick<Config, "publicOrigin">): z.input<typeof productSchema> {
  return {
    uuid: p.id,
    name: p.name,
    code: p.code,
    sku: p.sku,
    producttype: { uuid: p.type.id, code: p.type.code, name: p.type.name },
    copertina: p.cover,
    copertina_url: `${config.publicOrigin}${coverPath(p.cover)}`,
    masterproduct: p.masterProductId,
    moodle_id: p.moodleId,
    isbn: p.isbn,
    issn: p.issn,
    ean: p.ean,
    url: p.url,
    shortauthors: p.shortAuthors,
    edizione: p.edition,
    periodicita: p.periodicity,
    pubdate: toMillis(p.pubdate),
    price: euros(p.priceCents),
    monthlyprice: p.monthlyPriceCents === null ? null : euros(p.monthlyPriceCents),
    buylink: p.sellable ? `${config.publicOrigin}${checkoutPath(p.code ?? p.sku)}` : null,
  };
}

export const pimOperations = [
  publicOperation({
    model: "professione",
    name: "getall-professione",
    publicCache: true,
    method: "GET",
    path: "professione/getall/",
    summary: "Le professioni, per posizione.",
    result: z.array(profession),
    handle: async ({ services }) => (await services.reference.professions()).map(asProfession),
  }),
  publicOperation({
    model: "professione",
    name: "load",
    method: "POST",
    path: "professione/load/",
    summary: "Le professioni con questi id.",
    body: idList,
    result: z.array(profession),
    async handle({ body, services }) {
      return (await services.reference.professions()).filter((p) => body.includes(p.id)).map(asProfession);
    },
  }),
  publicOperation({
    model: "interesse",
    name: "getall-interesse",
    publicCache: true,
    method: "GET",
    path: "interesse/getall/",
    summary: "Gli interessi, per nome ('Altro' per ultimo).",
    result: z.array(coded),
    handle: async ({ services }) => (await services.reference.interests()).map((i) => ({ ...asOption(i), code: i.code })),
  }),
  publicOperation({
    model: "materia",
    name: "getall-materia",
    publicCache: true,
    method: "GET",
    path: "materia/getall/",
    summary: "Le materie, per nome.",
    result: z.array(option),
    handle: async ({ services }) => (await services.reference.subjects()).map(asOption),
  }),
  publicOperation({
    model: "universita",
    name: "getall-universita",
    publicCache: true,
    method: "GET",
    path: "universita/getall/",
    summary: "Le università, per nome.",
    result: z.array(option),
    handle: async ({ services }) => (await services.reference.universities()).map(asOption),
  }),
  publicOperation({
    model: "corsolaurea",
    name: "getall-corsolaurea",
    publicCache: true,
    method: "GET",
    path: "corsolaurea/getall/",
    summary: "I corsi di laurea, per nome; con `universita`, solo quelli di un'università.",
    query: z.object({ universita: uuid.optional() }),
    result: z.array(option.extend({ universita: z.string() })),
    async handle({ query, services }) {
      // An unknown university is the client's mistake, not a university without courses.
      if (query.universita && !(await services.reference.universities()).some((u) => u.id === query.universita)) {
        throw new ApiError(400, MESSAGES.invalidChoice);
      }
      const all = await services.reference.allDegreeCourses();
      const wanted = query.universita ? all.filter((c) => c.universityId === query.universita) : all;
      return wanted.map((c) => ({ ...asOption(c), universita: c.universityId }));
    },
  }),
  publicOperation({
    model: "product",
    name: "load",
    method: "POST",
    path: "product/load/",
    summary: "I prodotti con questi id, nell'ordine chiesto.",
    body: idList,
    result: z.array(productSchema),
    handle: async ({ body, services, config }) => (await services.products.load(body)).map((p) => productOf(p, config)),
  }),
  publicOperation({
    model: "producttype",
    name: "load",
    method: "POST",
    path: "producttype/load/",
    summary: "I tipi di prodotto con questi id.",
    body: idList,
    result: z.array(productType),
    handle: async ({ body, services }) =>
      (await services.products.types())
        .filter((t) => body.includes(t.id))
        .map((t) => ({ uuid: t.id, code: t.code, name: t.name })),
  }),
];
