// The database schema, one file per domain. drizzle-kit reads what this file exports
// (drizzle.config.ts) and generates the SQL migrations in ../migrations from it.
export * from "./catalogue.ts";
export * from "./content.ts";
export * from "./accounts.ts";
export * from "./identity.ts";
export * from "./security.ts";
export * from "./mail.ts";
export * from "./audit.ts";
export * from "./orders.ts";
export * from "./payment-gateways.ts";
export * from "./payments.ts";
export * from "./subscriptions.ts";
export * from "./library.ts";
export * from "./invoices.ts";
export * from "./jobs.ts";
