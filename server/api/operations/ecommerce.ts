// ecommerce: what the shop shows around the customer's products (spec §7): the dashboard's
// discover, promo and contact boxes by area code, the newest books, journals and courses, a
// product's page and an ISBN search (all public, the catalogue's data), and the customer's last
// orders (their own).
import { z } from "zod";
import { isOrderCode, isProductCode } from "#server/lib/ids.ts";
import { API_MESSAGES, ApiError } from "#server/api/errors.ts";
import { operationsOf } from "#server/api/operation.ts";
import type { Services } from "#server/services.ts";
import { orderOf, orderSchema } from "./order.ts";
import { queryCount } from "./fields.ts";
import { productOf, productSchema } from "./pim.ts";

const { publicOperation, customerOperation } = operationsOf("ecommerce");

/** An area code as the publisher names them (dashboard_studenti_top_right, dashboard_contatti). */
const areaQuery = z.object({ areacode: z.string().regex(/^[a-z0-9_]{1,64}$/, API_MESSAGES.notFound) });
/**
 * Refuses an area code no box uses, with the same 404 from the three box calls: a client's
 * misspelt code is told apart from an area that has nothing of this kind now.
 */
async function knownArea(services: Services, areaCode: string) {
  if (!(await services.library.dashboard.isKnownArea(areaCode))) throw new ApiError(404, API_MESSAGES.notFound);
}

/** How many products a list gives: 20 unless asked, at most 100. */
const limit = queryCount(20);
/** A yes/no of the query string: 1/true or 0/false (absent: no); any other value is refused. */
const flag = z
  .enum(["1", "0", "true", "false"])
  .optional()
  .transform((v) => v === "1" || v === "true");

const promoBoxSchema = z.object({
  areacode: z.string(),
  title: z.string(),
  subtitle: z.string().nullable(),
  titleisimage: z.boolean(),
  title_image: z.string().nullable(),
  isbanner: z.boolean(),
  banner_image: z.string().nullable(),
  banner_url: z.string().nullable(),
  banner_cta: z.string().nullable(),
  boxes: z.array(z.object({ title: z.string(), url: z.string(), cta: z.string(), color: z.string() })),
});
const contactBoxSchema = z.object({ title: z.string(), description: z.string(), url: z.string(), cta: z.string() });

const productList = (name: string, path: string, summary: string, list: "journals" | "courses") =>
  publicOperation({
    model: "product",
    name,
    method: "GET",
    path,
    summary,
    query: z.object({ limit }),
    result: z.array(productSchema),
    handle: async ({ query, services, config }) => (await services.products[list](query.limit)).map((p) => productOf(p, config)),
  });

export const ecommerceOperations = [
  publicOperation({
    model: "boxdiscover",
    name: "getdiscover",
    method: "GET",
    path: "boxdiscover/getdiscover/",
    summary: "I prodotti da scoprire di un'area (per ISBN, nell'ordine della redazione); 404 per un'area sconosciuta.",
    query: areaQuery,
    result: z.array(productSchema),
    refusals: [404],
    async handle({ query, services, config }) {
      await knownArea(services, query.areacode);
      return (await services.products.discover(query.areacode)).map((p) => productOf(p, config));
    },
  }),
  publicOperation({
    model: "boxpromoarea",
    name: "getbox",
    method: "GET",
    path: "boxpromoarea/getbox/",
    summary: "Il box promozionale di un'area, con i suoi riquadri (fino a 20); 404 per un'area sconosciuta o senza.",
    query: areaQuery,
    result: promoBoxSchema,
    refusals: [404],
    async handle({ query, services }) {
      await knownArea(services, query.areacode);
      const box = await services.library.dashboard.promoBox(query.areacode);
      if (!box) throw new ApiError(404, API_MESSAGES.notFound);
      return {
        areacode: box.areaCode,
        title: box.title,
        subtitle: box.subtitle,
        titleisimage: box.titleIsImage,
        title_image: box.titleImage,
        isbanner: box.isBanner,
        banner_image: box.bannerImage,
        banner_url: box.bannerUrl,
        banner_cta: box.bannerCta,
        boxes: box.smallBoxes,
      };
    },
  }),
  publicOperation({
    model: "boxcontactarea",
    name: "getbox",
    method: "GET",
    path: "boxcontactarea/getbox/",
    summary: "I box dei contatti di un'area, in ordine; 404 per un'area sconosciuta.",
    query: areaQuery,
    result: z.array(contactBoxSchema),
    refusals: [404],
    async handle({ query, services }) {
      await knownArea(services, query.areacode);
      return services.library.dashboard.contactBoxes(query.areacode);
    },
  }),
  publicOperation({
    model: "product",
    name: "magento_getbooks",
    method: "GET",
    path: "product/getbooks/",
    summary:
      "I libri più recenti per gli studenti e i docenti (additionalfilters=student=1) o per i professionisti (legal_professions=1).",
    query: z.object({
      additionalfilters: z.enum(["student=1", "legal_professions=1"], { error: API_MESSAGES.badFilter }).default("student=1"),
      limit,
    }),
    result: z.array(productSchema),
    handle: async ({ query, services, config }) =>
      (await services.products.books(query.additionalfilters === "student=1" ? "students" : "professionals", query.limit)).map(
        (p) => productOf(p, config),
      ),
  }),
  productList("magento_getriviste", "product/getriviste/", "Le riviste più recenti.", "journals"),
  productList("magento_getcorsi", "product/getcorsi/", "I corsi più recenti.", "courses"),
  publicOperation({
    model: "product",
    name: "magento_getproductpage",
    method: "GET",
    path: "product/getproductpage/",
    summary: "Dove si acquista il prodotto con questo SKU (l'indirizzo della cassa).",
    query: z.object({ sku: z.string().refine(isProductCode, API_MESSAGES.notFound) }),
    result: z.url(),
    refusals: [404],
    async handle({ query, services, config }) {
      const product = await services.products.bySku(query.sku.trim());
      const buylink = product && productOf(product, config).buylink;
      if (!buylink) throw new ApiError(404, API_MESSAGES.notFound);
      return buylink;
    },
  }),
  publicOperation({
    model: "product",
    name: "product_search",
    method: "GET",
    path: "product/search/",
    summary: "I prodotti con questo ISBN (di solito uno: limit=1).",
    query: z.object({ isbn: z.string().regex(/^[0-9X-]{10,17}$/i, API_MESSAGES.notFound), limit }),
    result: z.array(productSchema),
    handle: async ({ query, services, config }) =>
      (await services.products.byIsbn(query.isbn.replaceAll("-", ""), query.limit)).map((p) => productOf(p, config)),
  }),
  publicOperation({
    model: "producttype",
    name: "producttype_search",
    publicCache: true,
    method: "GET",
    path: "producttype/search/",
    summary: "Tutti i tipi di prodotto (ebook, paper_flex, paper_hard, corso, rivista, abbonamento).",
    result: z.array(z.object({ uuid: z.string(), code: z.string(), name: z.string() })),
    handle: async ({ services }) => (await services.products.types()).map((t) => ({ uuid: t.id, code: t.code, name: t.name })),
  }),
  customerOperation({
    model: "order",
    name: "order_getlastuserorders",
    method: "GET",
    path: "order/getlastuserorders/",
    summary:
      "Gli ultimi ordini del cliente, num per pagina dalla pagina page (1, 2, …): onlyactive=1 solo quelli pagati, hidepaper=1 senza quelli di soli libri cartacei; con ordercode, solo quell'ordine.",
    query: z.object({
      onlyactive: flag,
      hidepaper: flag,
      num: queryCount(10),
      page: z.coerce.number().int().min(1).max(10_000).default(1),
      ordercode: z.string().refine(isOrderCode, API_MESSAGES.notFound).optional(),
    }),
    result: z.array(orderSchema),
    handle: async ({ query, caller, services }) =>
      (
        await services.customerOrders.list(caller.userId, {
          activeOnly: query.onlyactive,
          hidePaper: query.hidepaper,
          orderCode: query.ordercode,
          limit: query.num,
          offset: (query.page - 1) * query.num,
        })
      ).map(orderOf),
  }),
  customerOperation({
    model: "order",
    name: "order_getlastuserorder",
    method: "GET",
    path: "order/getlastuserorder/",
    summary: "L'ultimo ordine del cliente, o null.",
    result: orderSchema.nullable(),
    handle: async ({ caller, services }) => {
      const [last] = await services.customerOrders.list(caller.userId, { limit: 1 });
      return last ? orderOf(last) : null;
    },
  }),
];
