/**
 * The request id every response carries in `x-request-id`, and every audit row, webhook
 * delivery and log line the request writes. A client (or a proxy in front of us) may send its
 * own to join our records to its traces; we keep it only when it is well formed, since it ends
 * up in logs and D1 rows, and make a fresh one otherwise.
 */
export const REQUEST_ID_HEADER = "x-request-id";

/** At most 128 characters of letters, digits and `.`, `_`, `:`, `-`, `/`, `+`, `=`, `@` (UUIDs, ULIDs, W3C trace ids, base64). */
const WELL_FORMED = /^[A-Za-z0-9._:\/+=@-]{1,128}$/;

/** Whether a client's id is one we keep as it is. */
export function isWellFormedRequestId(value: string): boolean {
  return WELL_FORMED.test(value);
}

/**
 * The request's id: the client's when well formed, else a new random UUID.
 *
 * @example
 * const id = requestIdOf(c.req.header(REQUEST_ID_HEADER));
 */
export function requestIdOf(sent: string | undefined): string {
  return sent !== undefined && WELL_FORMED.test(sent) ? sent : crypto.randomUUID();
}
