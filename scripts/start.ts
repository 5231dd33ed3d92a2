// `npm start`: outside production, builds the portal when the build is missing or older than the
// sources, then runs the server in this same process (it migrates the database and seeds an empty
// one). In production it builds nothing: instances started at once would each rebuild the same
// folder under the others; the build is made once (`npm run build`) before they start.
import { buildIfStale, buildIsStale } from "./build-if-stale.ts";

if (process.env.NODE_ENV !== "production") buildIfStale();
else if (buildIsStale())
  console.warn("The build is missing or older than the sources: `npm run build` once, then start the instances.");
await import("#server/main.ts");
