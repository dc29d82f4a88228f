/**
 * The signed-in web sites of the gateway: the approvals page, the admin console and the chat page
 * share one machinery (one sign-in, CSRF, headers, layout, error page) and differ only in what a
 * `PageSite` names. One sign-in opens every site the key's role may see (page-auth.tsx).
 */
import { ROLES, type Role } from "../auth/principal.ts";

/** Where each site lives; also its home page. The navigation links them, so they are named once here. */
export const SITE_BASES = { admin: "/admin", approvals: "/approvals", chat: "/chat" } as const;

/**
 * The one signed-in cookie of every site, sent as `__Host-toolgate-session`. Until the sites
 * shared it, each had its own (`toolgate-admin`, `toolgate-approvals`, `toolgate-chat`); nothing
 * reads those any more, so a browser still carrying one is simply asked to sign in.
 */
export const SESSION_COOKIE = "toolgate-session";

/** A link in the navigation bar, shown to a viewer whose role is in `roles`. */
export interface NavLink {
  href: string;
  label: string;
  roles: readonly Role[];
}

const ADMIN_ONLY: readonly Role[] = ["admin"];
const APPROVERS: readonly Role[] = ["approver", "admin"];

/**
 * The navigation of every signed-in page, one list for all sites: each viewer sees the links of
 * the pages their role may open, so a link never leads to a refusal.
 */
export const SITE_NAV: readonly NavLink[] = [
  { href: SITE_BASES.admin, label: "Overview", roles: ADMIN_ONLY },
  { href: `${SITE_BASES.admin}/audit`, label: "Audit", roles: ADMIN_ONLY },
  { href: `${SITE_BASES.admin}/tools`, label: "Tools", roles: ADMIN_ONLY },
  { href: `${SITE_BASES.admin}/keys`, label: "Keys", roles: ADMIN_ONLY },
  { href: `${SITE_BASES.admin}/mcp-servers`, label: "MCP servers", roles: ADMIN_ONLY },
  { href: `${SITE_BASES.admin}/openapi-sources`, label: "OpenAPI sources", roles: ADMIN_ONLY },
  { href: `${SITE_BASES.admin}/webhooks`, label: "Webhooks", roles: ADMIN_ONLY },
  { href: `${SITE_BASES.admin}/schedules`, label: "Schedules", roles: ADMIN_ONLY },
  { href: `${SITE_BASES.admin}/connections`, label: "Connections", roles: ADMIN_ONLY },
  { href: SITE_BASES.approvals, label: "Approvals", roles: APPROVERS },
  { href: SITE_BASES.chat, label: "Chat", roles: ROLES },
  { href: `${SITE_BASES.chat}/connections`, label: "My connections", roles: ROLES },
];

/** The navigation links `role` may follow. */
export const navFor = (role: Role): NavLink[] => SITE_NAV.filter((link) => link.roles.includes(role));

export interface PageSite {
  /** The path every page of the site lives under, e.g. `/approvals`; also its home page. */
  base: string;
  /** Shown in the header and after every page title. */
  title: string;
  /** Roles that may open the site's pages; anything else is refused with `roleHint`. */
  roles: readonly Role[];
  /** Says what key the site needs, after "the key has the X role;". */
  roleHint: string;
  /**
   * A page outside `base` behind the same sign-in, that a sign-in may return to with its whole
   * query (`next` is the check of path and query): the OAuth consent page.
   */
  outside?: { path: string; next: RegExp };
}

/** The approvals page (src/approvals-page/approvals-page-routes.tsx). */
export const APPROVALS_SITE: PageSite = {
  base: SITE_BASES.approvals,
  title: "toolgate approvals",
  roles: APPROVERS,
  roleHint: "the approvals page needs an approver or admin key. Agent keys can never approve calls.",
  // The consent page's path is fixed, and a query (no backslash, no fragment, no space) cannot change the origin.
  outside: { path: "/oauth/authorize", next: /^\/oauth\/authorize\?[^\\#\s]*$/ },
};

/** The stylesheet's path: public, so the sign-in page can use it too. */
export const cssPathOf = (site: PageSite): string => `${site.base}/page.css`;
