/**
 * The gateway's limits and retention when nothing sets them: shared by the config schema and the
 * modules that apply them (which the demo and the tests start without a config file).
 */
export const DEFAULT_FAILED_AUTH_LIMIT = { maxFailures: 20, maxFailuresAllAddresses: 1_000, windowSeconds: 60, trackedAddresses: 10_000 };
export const DEFAULT_API_KEY_CACHE_SIZE = 10_000;
export const DEFAULT_IDEMPOTENCY_RETENTION_HOURS = 24;
export const DEFAULT_JOB_LOG_RETENTION_DAYS = 30;
export const DEFAULT_PURGE_INTERVAL_MINUTES = 60;
/** Events stay in the feed this long; webhook deliveries give up after 24 h, well within it. */
export const DEFAULT_EVENT_RETENTION_DAYS = 7;
