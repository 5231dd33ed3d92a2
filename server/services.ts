// The back-end services, created once at start-up and handed to every request through the
// React Router context.
import { createPasswordChanges } from "./accounts/password-change.ts";
import { createProfiles } from "./accounts/profile.ts";
import { createPasswordResets } from "./accounts/password-resets.ts";
import { createAccountsService } from "./accounts/service.ts";
import { createSessionStore } from "./accounts/sessions.ts";
import { createAuditLog } from "./audit/service.ts";
import { createReferenceData } from "./catalog/reference.ts";
import { createCatalogService } from "./catalog/service.ts";
import type { Config } from "./config.ts";
import { createContentService } from "./content/service.ts";
import type { DatabaseHandle } from "./db/client.ts";
import { loadSigningKeys } from "./identity/keys.ts";
import { createIdentityProvider } from "./identity/provider.ts";
import { createRelyingParty } from "./identity/relying-party.ts";
import { createIdentityService } from "./identity/service.ts";
import { createSocialLogin } from "./identity/social-login.ts";
import { createFlashToasts } from "./lib/flash-toast.ts";
import type { Logger } from "./logger.ts";
import { createActivation } from "./library/activation.ts";
import { createLibraryDashboard } from "./library/dashboard.ts";
import { createReading } from "./library/reading.ts";
import { createMailService } from "./mail/service.ts";
import { createRateLimits } from "./security/rate-limits.ts";

export async function createServices({ config, database, log }: { config: Config; database: DatabaseHandle; log: Logger }) {
  const { db } = database;
  const accounts = createAccountsService(db);
  const sessions = createSessionStore(db);
  const rateLimits = createRateLimits(db, { onPurgeError: (err) => log.warn({ err }, "rate limit purge failed") });
  // Keys given by configuration win; otherwise those generated at first start.
  const signingKeys = config.oidc.jwks?.keys ?? (await loadSigningKeys(db));
  const provider = createIdentityProvider({ config, db, accounts, signingKeys });
  return {
    content: createContentService(db),
    catalog: createCatalogService(db),
    accounts,
    profiles: createProfiles(db),
    reference: createReferenceData(db),
    passwordResets: createPasswordResets(db),
    passwordChanges: createPasswordChanges(db),
    mail: createMailService({ db, ...config.mail, log }),
    rateLimits,
    audit: createAuditLog(db),
    identity: createIdentityService(provider, db),
    auth: createRelyingParty({ config, sessions, accounts }),
    socialLogin: createSocialLogin({ config, accounts }),
    library: {
      activation: createActivation({ db, codeKey: config.secrets.activationCodeKey, rateLimits }),
      reading: createReading({ db, readerUrlTemplate: config.readerUrlTemplate, links: config.links }),
      dashboard: createLibraryDashboard({ db, links: config.links }),
    },
    flash: createFlashToasts({ secret: config.secrets.session, secure: config.isHttps }),
    health: { checkDatabase: () => database.ping() },
    /** Stops the background work of the services (before the database closes). */
    close: () => rateLimits.close(),
  };
}

export type Services = Awaited<ReturnType<typeof createServices>>;
