/** Upstream statuses worth retrying: rate limiting and the gateway-ish 5xx family. */
export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 502, 503, 504]);
