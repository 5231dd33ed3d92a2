// pim: the reference lists of the profile forms (spec §7 getall-*, professione load): public,
// the same cached lists the pages show.
import { z } from "zod";
import { operation } from "../operation.ts";
import { idList, uuid } from "./fields.ts";

const option = z.object({ uuid: z.string(), name: z.string() });
const coded = option.extend({ code: z.string() });
const profession = coded.extend({ position: z.number() });

const asOption = ({ id, name }: { id: string; name: string }) => ({ uuid: id, name });
const asProfession = (p: { id: string; name: string; code: string; position: number }) => ({
  ...asOption(p),
  code: p.code,
  position: p.position,
});

export const pimOperations = [
  operation({
    module: "pim",
    model: "professione",
    name: "getall-professione",
    method: "GET",
    path: "professione/getall/",
    summary: "Le professioni, per posizione.",
    auth: "public",
    result: z.array(profession),
    handle: async ({ services }) => (await services.reference.professions()).map(asProfession),
  }),
  operation({
    module: "pim",
    model: "professione",
    name: "load",
    method: "POST",
    path: "professione/load/",
    summary: "Le professioni con questi id.",
    auth: "public",
    body: idList,
    result: z.array(profession),
    async handle({ body, services }) {
      return (await services.reference.professions()).filter((p) => body.includes(p.id)).map(asProfession);
    },
  }),
  operation({
    module: "pim",
    model: "interesse",
    name: "getall-interesse",
    method: "GET",
    path: "interesse/getall/",
    summary: "Gli interessi, per nome ('Altro' per ultimo).",
    auth: "public",
    result: z.array(coded),
    handle: async ({ services }) => (await services.reference.interests()).map((i) => ({ ...asOption(i), code: i.code })),
  }),
  operation({
    module: "pim",
    model: "materia",
    name: "getall-materia",
    method: "GET",
    path: "materia/getall/",
    summary: "Le materie, per nome.",
    auth: "public",
    result: z.array(option),
    handle: async ({ services }) => (await services.reference.subjects()).map(asOption),
  }),
  operation({
    module: "pim",
    model: "universita",
    name: "getall-universita",
    method: "GET",
    path: "universita/getall/",
    summary: "Le università, per nome.",
    auth: "public",
    result: z.array(option),
    handle: async ({ services }) => (await services.reference.universities()).map(asOption),
  }),
  operation({
    module: "pim",
    model: "corsolaurea",
    name: "getall-corsolaurea",
    method: "GET",
    path: "corsolaurea/getall/",
    summary: "I corsi di laurea, per nome; con `universita`, solo quelli di un'università.",
    auth: "public",
    query: z.object({ universita: uuid.optional().catch(undefined) }),
    result: z.array(option.extend({ universita: z.string() })),
    async handle({ query, services }) {
      const all = await services.reference.allDegreeCourses();
      const wanted = query.universita ? all.filter((c) => c.universityId === query.universita) : all;
      return wanted.map((c) => ({ ...asOption(c), universita: c.universityId }));
    },
  }),
];
