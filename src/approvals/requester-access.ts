/**
 * Who asked for an approved call, checked again when a person approves it. Minutes may pass
 * between the request and the decision; in that time the key may have been revoked or deleted,
 * or its policy narrowed, and an approval must not outlive the access it was asked under. So
 * the Session object runs an approved call with the requester's access as it is now, never as
 * it was.
 *
 * - An API key is read from D1 (not the authentication cache, which may lag a revocation by its
 *   TTL): deleted or revoked refuses; otherwise its current toolsets and policy decide.
 * - `admin-token` has every tool while ADMIN_TOKEN is set; it cannot be revoked through the API,
 *   only by removing or changing the secret, and a removed secret refuses. (A changed secret is
 *   not detected: the request did not keep the token's digest.)
 * - `hook:<name>` is defined in code, so its access is derived again from the webhook registry: a
 *   webhook no longer registered, or whose secret is unset (which disables the webhook), refuses.
 * - Any other requester (a door that named no key) cannot be checked, so it refuses: fail closed.
 */
import { ADMIN_TOKEN_KEY_ID, ADMIN_TOKEN_PRINCIPAL } from "../auth/admin-token.ts";
import { getApiKey, principalOf } from "../auth/key-store.ts";
import type { Principal } from "../auth/principal.ts";
import { createToolAccess, type ToolAccess } from "../policy/tool-access.ts";
import { kvToolsetLookup } from "../toolsets/custom-toolsets.ts";
import { WEBHOOK_KEY_PREFIX, webhookPrincipal, webhookSecret } from "../webhooks/webhook-principal.ts";
import { webhookRegistry } from "../webhooks/webhook-registry.ts";

/** The rule a refusal names in the audit log and the envelope (`requester:revoked`, ...). */
export type RequesterRefusal = { ok: false; rule: string; message: string };

export type RequesterAccess = { ok: true; access: ToolAccess } | RequesterRefusal;

const refuse = (reason: string, message: string): RequesterRefusal => ({
  ok: false,
  rule: `requester:${reason}`,
  message: `${message}, so the approved call did not run. Ask again with a key that may use the tool.`,
});

/** The requester's current access, or why it has none; never rejects. */
export async function requesterAccess(env: Env, keyId: string): Promise<RequesterAccess> {
  try {
    const principal = await currentPrincipal(env, keyId);
    if (!("keyId" in principal)) return principal;
    return { ok: true, access: await createToolAccess(principal, kvToolsetLookup(env.KV)) };
  } catch (error) {
    // Fail closed: an approval whose requester cannot be checked must not run on trust.
    console.error(`approval requester ${keyId}: could not be checked again: ${String(error)}`);
    return refuse("unchecked", `The key that asked (${keyId}) could not be checked again (its store did not answer)`);
  }
}

/** The requester as it is now (an agent run's key at each step), or why it may not act. */
export async function currentPrincipal(env: Env, keyId: string): Promise<Principal | RequesterRefusal> {
  if (keyId === ADMIN_TOKEN_KEY_ID) {
    const configured = env.ADMIN_TOKEN;
    return configured !== undefined && configured.trim() !== ""
      ? ADMIN_TOKEN_PRINCIPAL
      : refuse("admin_token_unset", "The admin token that asked is no longer configured (ADMIN_TOKEN is unset)");
  }
  if (keyId.startsWith(WEBHOOK_KEY_PREFIX)) {
    const name = keyId.slice(WEBHOOK_KEY_PREFIX.length);
    const hook = webhookRegistry.get(name);
    if (hook === undefined) return refuse("hook_unregistered", `The webhook '${name}' that asked is no longer registered`);
    if (webhookSecret(env, hook) === undefined)
      return refuse("hook_disabled", `The webhook '${name}' that asked is disabled (its secret ${hook.secretEnv} is unset)`);
    return webhookPrincipal(hook);
  }
  const record = await getApiKey(env.DB, keyId);
  if (record === undefined) return refuse("deleted", `The API key that asked (${keyId}) no longer exists`);
  if (record.revokedAt !== null) return refuse("revoked", `The API key that asked (${keyId}, '${record.name}') was revoked at ${record.revokedAt}`);
  return principalOf(record);
}
