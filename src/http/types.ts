/** The Hono environment every route shares: the Worker's bindings and who is calling. */
import type { AuthVariables } from "../auth/auth-env.ts";
import type { CatalogView } from "../catalog/catalog.ts";

export interface AppEnv {
  Bindings: Env;
  /** `catalog`: the catalog as /v1's middleware opened it for this request (absent elsewhere). */
  Variables: AuthVariables & { catalog?: CatalogView };
}
