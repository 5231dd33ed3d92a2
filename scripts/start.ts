// `npm start`: builds the portal when the build is missing or older than the sources, then
// runs the server in this same process (it migrates the database and seeds an empty one).
import { buildIfStale } from "./build-if-stale.ts";

buildIfStale();
await import("../server/main.ts");
