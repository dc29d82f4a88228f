/** The Hono environment every route shares: the Worker's bindings and who is calling. */
import type { AuthVariables } from "../auth/auth-env.ts";

export interface AppEnv {
  Bindings: Env;
  Variables: AuthVariables;
}
