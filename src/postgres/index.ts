// miniclaw/postgres: sessions and cron on PostgreSQL, opened by the CLI or the caller and handed in. The core never imports it.
export { openPostgres, type Migration, type OpenPostgresOptions, type Postgres } from "./open-postgres.js";
export { redactUrl, resolveDatabaseConfig, type DatabaseConfig, type DatabaseOption, type ResolvedDatabaseConfig } from "./config.js";
export type { PgClaimsOptions, PgCron } from "./cron-claims.js";
export { STALE_DETAIL } from "./cron-pg-runs.js";
export { PgSessionStore } from "./pg-store.js";
