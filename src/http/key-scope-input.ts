/**
 * What an HTTP route that runs a key's calls knows about its request, in the shape the pipeline's
 * request scope is opened from. `POST /v1/tool-calls` and `POST /v1/tools/{name}/call` both build
 * it here, so a call is scoped the same way whichever of the two it came in by.
 */
import type { Context } from "hono";
import type { GatewayConfig } from "../config/config.ts";
import type { ScopeInput } from "../pipeline/request-scope.ts";
import { accessOf } from "./access.ts";
import { requestOrigin } from "./request-origin.ts";
import type { AppEnv } from "./types.ts";
import { waitUntilOf } from "./wait-until.ts";

/** The scope input of a request the calling key made, for `sessionId`. */
export function keyScopeInput(c: Context<AppEnv>, config: GatewayConfig, sessionId: string) {
  return {
    env: c.env,
    config,
    principal: c.get("principal"),
    access: () => accessOf(c),
    sessionId,
    signal: c.req.raw.signal,
    waitUntil: waitUntilOf(c),
    origin: requestOrigin(c.req.url),
  } satisfies ScopeInput;
}
