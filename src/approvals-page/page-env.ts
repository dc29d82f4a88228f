/** The Hono environment of the approvals page. */
import type { Principal } from "../auth/principal.ts";
import type { Viewer } from "./layout.tsx";

export interface PageEnv {
  Bindings: Env;
  Variables: {
    /** Set by `requirePageSignIn()` for every page behind sign-in. */
    principal: Principal;
    viewer: Viewer;
    /** The sign-in id the cookie holds (sign-out deletes its record). */
    pageSignInId: string;
  };
}
