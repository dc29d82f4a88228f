/**
 * What an HTTP route that runs a key's calls knows about its request, in the shape the pipeline's
 * request scope is opened from. `POST /v1/tool-calls` and `POST /v1/tools/{name}/call` both build
 * it here, so a call is scoped the same way whichever of the two it came in by.
 */
import type { Context } from "hono";
import type { GatewayConfig } from "../config/config.ts";
import type { ScopeInput } from "../pipeline/request-scope.ts";
import { accessOf } from "./access.ts";
import { requestConnection } from "./request-connection.ts";
import type { AppEnv } from "./types.ts";
import { waitUntilOf } from "./wait-until.ts";

/**
 * What a session id (and a call id sent with one) may be: both land in the audit log and a session
 * id names its Session object, so the two routes hold them to one rule, said in the same words.
 */
export const SESSION_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;
export const SESSION_ID_RULE = "must be 1-128 characters of letters, digits, '.', '_', ':' or '-'";

/** The scope input of a request the calling key made, for `sessionId`. */
export function keyScopeInput(c: Context<AppEnv>, config: GatewayConfig, sessionId: string) {
  return {
    env: c.env,
    config,
    principal: c.get("principal"),
    access: () => accessOf(c),
    sessionId,
    connection: requestConnection(c.req.raw),
    catalog: c.get("catalog"),
    waitUntil: waitUntilOf(c),
  } satisfies ScopeInput;
}
