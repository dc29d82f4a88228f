/**
 * Ending an OAuth grant's tokens when its principal is revoked (DELETE /v1/keys/{id}). The grant's
 * id is the provider's user id (consent-routes.tsx), so every provider grant made under it, and
 * with them its access and refresh tokens, is found by that id and deleted from OAUTH_KV. D1's
 * revoked_at already refuses the tokens everywhere (mcp-authenticate.ts); deleting them as well
 * means a KV reader never finds a token to decrypt.
 */
import { authorizationServer } from "./authorization-server.ts";
import { mcpResource, servesOAuth } from "./oauth-paths.ts";

/** Revokes every provider grant of the principal `grantId`. */
export async function endGrantTokens(env: Env, origin: string, grantId: string): Promise<void> {
  // No issuer can be built for this origin; D1's revoked_at still refuses the tokens.
  if (!servesOAuth(origin)) return;
  // Listing and revoking grants is the same for every resource; any instance of the issuer does.
  const oauth = authorizationServer(origin, [mcpResource(origin)]).getOAuthApi(env);
  let cursor: string | undefined;
  do {
    const page = await oauth.listUserGrants(grantId, cursor === undefined ? {} : { cursor });
    await Promise.all(page.items.map((grant) => oauth.revokeGrant(grant.id, grantId)));
    cursor = page.cursor;
  } while (cursor !== undefined);
}
