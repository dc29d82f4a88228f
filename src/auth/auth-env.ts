/** The Hono environment of routes behind `authenticate()`. */
import type { Principal } from "./principal.ts";

export interface AuthVariables {
  /** Set by `authenticate()`; every route behind it can rely on it. */
  principal: Principal;
  /**
   * Set by the MCP doors' `mcpAuthenticate()` when the request signed in with an OAuth access
   * token (src/oauth/): the token, which a `token_exchange` server's calls exchange (RFC 8693).
   */
  oauthToken?: string;
}

export interface AuthEnv {
  Bindings: Env;
  Variables: AuthVariables;
}
