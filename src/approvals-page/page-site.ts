/**
 * A signed-in web site of the gateway: the approvals page and the admin console share one
 * machinery (sign-in, CSRF, headers, layout, error page) and differ only in what this names.
 */
import type { Role } from "../auth/principal.ts";

/** A link in a site's navigation bar. */
export interface NavLink {
  href: string;
  label: string;
}

export interface PageSite {
  /** The path every page of the site lives under, e.g. `/approvals`; also its home page. */
  base: string;
  /** Shown in the header and after every page title. */
  title: string;
  /** The signed-in cookie's name, sent with the `__Host-` prefix; each site keeps its own. */
  cookie: string;
  /** Roles that may sign in; anything else is refused with `roleHint`. */
  roles: readonly Role[];
  /** Says what key the site needs, after "the key has the X role;". */
  roleHint: string;
  /** The site's navigation, shown to a signed-in viewer. */
  nav: readonly NavLink[];
  /**
   * A page outside `base` behind the same sign-in, that a sign-in may return to with its whole
   * query (`next` is the check of path and query): the OAuth consent page.
   */
  outside?: { path: string; next: RegExp };
}

/** The approvals page (src/approvals-page/approvals-page-routes.tsx). */
export const APPROVALS_SITE: PageSite = {
  base: "/approvals",
  title: "toolgate approvals",
  cookie: "toolgate-approvals",
  roles: ["approver", "admin"],
  roleHint: "the approvals page needs an approver or admin key. Agent keys can never approve calls.",
  nav: [],
  // The consent page's path is fixed, and a query (no backslash, no fragment, no space) cannot change the origin.
  outside: { path: "/oauth/authorize", next: /^\/oauth\/authorize\?[^\\#\s]*$/ },
};

/** The stylesheet's path: public, so the sign-in page can use it too. */
export const cssPathOf = (site: PageSite): string => `${site.base}/page.css`;
