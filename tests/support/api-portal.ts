// The setup of the API's integration tests: a portal on a fresh test database, and its API's
// manifests, read as a client reads them.
import { loadManifests } from "./api-client.ts";
import { createTestDatabase, type TestDatabase } from "./database.ts";
import { startPortal, type Portal } from "./http-app.ts";

export type Manifests = Awaited<ReturnType<typeof loadManifests>>;
export type ApiPortal = { database: TestDatabase; portal: Portal; modules: Manifests };

export async function startApiPortal(): Promise<ApiPortal> {
  const database = await createTestDatabase();
  const portal = await startPortal(database);
  return { database, portal, modules: await loadManifests(portal.origin) };
}

/** Closes what `startApiPortal` started, whatever part of it did start. */
export async function stopApiPortal({ database, portal }: Partial<ApiPortal>): Promise<void> {
  await portal?.close();
  await database?.destroy();
}
