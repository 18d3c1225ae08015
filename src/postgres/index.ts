// miniclaw/postgres: sessions and cron on PostgreSQL, opened by the CLI or the caller and handed in. The core never imports it.
export { openPostgres, type OpenPostgresOptions, type Postgres } from "./open-postgres.js";
export { DEFAULT_POOL_SIZE, DEFAULT_SCHEMA, DEFAULT_TURN_CONNECTIONS, redactUrl, resolveDatabaseConfig, type DatabaseConfig, type DatabaseOption, type ResolvedDatabaseConfig } from "./config.js";
export { DEFAULT_MAX_RUNS, POLL_MS, type PgClaimsOptions, type PgCron } from "./cron-claims.js";
export { STALE_DETAIL } from "./cron-pg-runs.js";
export { HEARTBEAT_MS, HEARTBEAT_TIMEOUT_MS } from "./advisory-lock.js";
export { PgSessionStore } from "./pg-store.js";
