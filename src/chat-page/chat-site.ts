/** The chat page as a signed-in site (src/approvals-page/page-site.ts): where it lives, who may sign in. */

import { type PageSite, SITE_BASES } from "../approvals-page/page-site.ts";
import { ROLES } from "../auth/principal.ts";

export const CHAT_BASE = SITE_BASES.chat;

/**
 * Any key may talk to the agent: a run uses the signed-in key's own tools and limits, exactly as
 * POST /v1/runs with that key would, so the page grants nothing the API does not.
 */
export const CHAT_SITE: PageSite = {
  base: CHAT_BASE,
  title: "toolgate chat",
  roles: ROLES,
  roleHint: "any valid key may use the chat page.",
};
