/** The Hono environment of the approvals page. */
import type { Principal } from "../auth/principal.ts";
import type { Viewer } from "./layout.tsx";

export interface PageEnv {
  Bindings: Env;
  Variables: {
    /** Set by `requirePageSession()` for every page behind sign-in. */
    principal: Principal;
    viewer: Viewer;
    /** The cookie's session id (sign-out deletes it). */
    pageSessionId: string;
  };
}
