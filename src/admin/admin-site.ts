/** The admin console as a signed-in site (src/approvals-page/page-site.ts): where it lives, who may sign in. */
import { type PageSite, SITE_BASES } from "../approvals-page/page-site.ts";

export const ADMIN_BASE = SITE_BASES.admin;

/**
 * Admins only: the console shows every key's calls, keys and servers. An approver's sign-in opens
 * the approvals and chat pages and is refused here; agent keys open only the chat page.
 */
export const ADMIN_SITE: PageSite = {
  base: ADMIN_BASE,
  title: "toolgate admin",
  roles: ["admin"],
  roleHint: "the admin console needs an admin key.",
};
