/** The names of the keys a page mentions, so people read "ci-agent" instead of a UUID. */
import { ADMIN_TOKEN_PRINCIPAL } from "../auth/admin-token.ts";
import { getApiKey } from "../auth/key-store.ts";
import type { KeyNames } from "./approval-card.tsx";

interface MentionsKeys {
  requestedBy?: string;
  decidedBy?: string | undefined;
  keyId?: string;
}

/**
 * Looks up each distinct key id once (a page shows at most a few hundred items, and usually a
 * handful of keys). Unknown ids are left out; the page shows them as ids.
 */
export async function keyNamesOf(db: D1Database, ...lists: readonly (readonly MentionsKeys[])[]): Promise<KeyNames> {
  const ids = new Set<string>();
  for (const item of lists.flat()) {
    for (const id of [item.requestedBy, item.decidedBy, item.keyId]) if (id !== undefined) ids.add(id);
  }
  const names = new Map<string, string>();
  ids.delete(ADMIN_TOKEN_PRINCIPAL.keyId);
  names.set(ADMIN_TOKEN_PRINCIPAL.keyId, ADMIN_TOKEN_PRINCIPAL.name);
  await Promise.all(
    [...ids].map(async (id) => {
      const record = await getApiKey(db, id);
      if (record !== undefined) names.set(id, record.name);
    }),
  );
  return names;
}
