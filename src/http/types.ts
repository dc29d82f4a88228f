/** The Hono environment every route shares. */
export interface AppEnv {
  Bindings: Env;
}
