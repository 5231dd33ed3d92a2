// The project's own lint rule for docs/architecture.md: the server's folders are layers, and a
// module imports only from its own folder or a layer below it, so that money and access flow one
// way (issue 31). Doors (the JSON API, the operators' commands, the HTTP app, the wiring in
// services.ts) sit on top and may import any layer; no layer imports a door.
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");

/**
 * Lowest first. A folder's modules may import their own folder and those of the layers before
 * it; folders side by side in one layer do not import each other, except the foundation's (the
 * first layer), which are one piece.
 */
const LAYERS = [
  ["lib", "db", "logger.ts", "config.ts", "metrics.ts"],
  ["jobs", "audit", "security", "content", "media"],
  ["mail"],
  ["catalog"],
  ["library"],
  ["invoices"],
  ["payments"],
  ["commerce"],
  ["accounts"],
  ["identity"],
];

/** The layer of each part of the server. */
const rank = new Map(LAYERS.flatMap((parts, i) => parts.map((part) => [part, i])));

/** Modules that belong to no layer although they sit in one's folder: they are doors (start-up, demo data). */
const DOORS_INSIDE = [/^db\/seed\//, /^db\/prepare\.ts$/];

/** `server/<part>/…` → its part (a folder, or a file at the server's top); null outside server/. */
function partOf(file) {
  const relative = path.relative(path.join(root, "server"), file).split(path.sep).join("/");
  if (relative.startsWith("..")) return null;
  if (DOORS_INSIDE.some((door) => door.test(relative))) return { part: relative, door: true };
  const part = relative.split("/")[0];
  return { part, door: !rank.has(part) };
}

/** An import's file: a relative path, or one of package.json's subpath imports (#server/…). */
function resolve(fromFile, specifier) {
  if (specifier.startsWith(".")) return path.resolve(path.dirname(fromFile), specifier);
  const subpath = /^#(server|app|shared)\/(.*)$/.exec(specifier);
  return subpath ? path.join(root, subpath[1], subpath[2]) : null;
}

export default {
  rules: {
    layers: {
      meta: {
        type: "problem",
        docs: { description: "A server module imports only its own layer and those below it (docs/architecture.md)." },
        schema: [],
      },
      create(context) {
        const from = partOf(context.filename);
        if (!from || from.door) return {};
        const check = (node) => {
          const specifier = node.source?.value;
          if (typeof specifier !== "string") return;
          const target = resolve(context.filename, specifier);
          const to = target && partOf(target);
          if (!to || to.part === from.part) return;
          if (to.door) {
            context.report({
              node: node.source,
              message: `server/${from.part} is a layer: it never imports a door (server/${to.part}).`,
            });
          } else if (
            rank.get(to.part) > rank.get(from.part) ||
            (rank.get(to.part) === rank.get(from.part) && rank.get(from.part) > 0)
          ) {
            const where = rank.get(to.part) === rank.get(from.part) ? "beside" : "below";
            context.report({
              node: node.source,
              message: `server/${from.part} sits ${where} server/${to.part} (docs/architecture.md): it may not import it. Pass what it needs in, or move the code down.`,
            });
          }
        };
        return { ImportDeclaration: check, ExportNamedDeclaration: check, ExportAllDeclaration: check, ImportExpression: check };
      },
    },
  },
};
