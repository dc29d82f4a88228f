/** The Hono environment of routes behind `authenticate()`. */
import type { Principal } from "./principal.ts";

export interface AuthVariables {
  /** Set by `authenticate()`; every route behind it can rely on it. */
  principal: Principal;
}

export interface AuthEnv {
  Bindings: Env;
  Variables: AuthVariables;
}
