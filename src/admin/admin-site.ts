/** The admin console as a signed-in site (src/approvals-page/page-site.ts): where it lives, who may sign in. */
import type { PageSite } from "../approvals-page/page-site.ts";

export const ADMIN_BASE = "/admin";

/**
 * Admins see and change everything; approvers may sign in to look (overview, audit, keys list,
 * tools) and every change refuses them (require-admin.ts). Agent keys never sign in.
 */
export const ADMIN_SITE: PageSite = {
  base: ADMIN_BASE,
  title: "toolgate admin",
  cookie: "toolgate-admin",
  roles: ["admin", "approver"],
  roleHint: "the admin console needs an admin key (or an approver key, to look without changing anything). Agent keys never sign in.",
  nav: [
    { href: ADMIN_BASE, label: "Overview" },
    { href: `${ADMIN_BASE}/audit`, label: "Audit" },
    { href: `${ADMIN_BASE}/tools`, label: "Tools" },
    { href: `${ADMIN_BASE}/keys`, label: "Keys" },
    { href: `${ADMIN_BASE}/mcp-servers`, label: "MCP servers" },
    { href: `${ADMIN_BASE}/openapi-sources`, label: "OpenAPI sources" },
    { href: `${ADMIN_BASE}/webhooks`, label: "Webhooks" },
    { href: "/approvals", label: "Approvals" },
  ],
};
