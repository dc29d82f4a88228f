/** @jsxImportSource hono/jsx */
/** The sign-in form: an approver's (or admin's) API key, posted once and never stored. */
import type { FC } from "hono/jsx";
import { Layout } from "./layout.tsx";
import { APPROVALS_SITE, type PageSite } from "./page-site.ts";
import { PAGE_SIGN_IN_TTL_SECONDS } from "./sign-in-store.ts";

export interface SignInProps {
  /** The CSRF token of the sign-in form itself (double-submitted: this field and a cookie). */
  csrfToken: string;
  /** The page to return to after signing in. */
  next: string;
  /** Why the person is here again (a failed sign-in, an ended sign-in). */
  message?: string | undefined;
  site?: PageSite;
}

export const SignInPage: FC<SignInProps> = ({ csrfToken, next, message, site = APPROVALS_SITE }) => (
  <Layout title="Sign in" site={site}>
    <h2>Sign in</h2>
    {message === undefined ? null : (
      <p class="notice error" role="alert">
        {message}
      </p>
    )}
    <form method="post" action={`${site.base}/sign-in`} class="card">
      <input type="hidden" name="csrf" value={csrfToken} />
      <input type="hidden" name="next" value={next} />
      <div class="field">
        <label for="api-key">API key ({site.roles.join(" or ")} role)</label>
        <input id="api-key" name="key" type="password" required autocomplete="off" spellcheck={false} autofocus />
      </div>
      <p class="muted">The key is checked and then forgotten; the page keeps a session cookie for up to {PAGE_SIGN_IN_TTL_SECONDS / 3600} hours.</p>
      <button type="submit" class="approve">
        Sign in
      </button>
    </form>
  </Layout>
);
