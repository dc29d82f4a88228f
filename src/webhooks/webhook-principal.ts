/**
 * Who a webhook's calls run as. A delivery carries no API key, so each webhook is its own principal:
 * key id `hook:<name>` (what the audit log and the rate limiter see), the agent role, and
 * exactly the toolsets the webhook declares. An empty list resolves to no tools, so a webhook that
 * declares none has every call refused with PERMISSION_DENIED.
 */
import type { Principal } from "../auth/principal.ts";
import { secretValue } from "../net/secret-headers.ts";
import type { WebhookEntry } from "./webhook-registry.ts";

export const WEBHOOK_KEY_PREFIX = "hook:";
export const webhookKeyId = (hook: string): string => `${WEBHOOK_KEY_PREFIX}${hook}`;

/** The principal a webhook's calls run as. */
export function webhookPrincipal(hook: WebhookEntry): Principal {
  return {
    keyId: webhookKeyId(hook.name),
    name: `webhook ${hook.name}`,
    role: "agent",
    toolsets: [...hook.toolsets],
    policy: { mode: "deny", patterns: [] },
    rateLimitPerMinute: hook.rateLimitPerMinute ?? null,
    scopes: [],
  };
}

/** The webhook's shared secret, or undefined when its env var is unset or blank. */
export function webhookSecret(env: Env, hook: Pick<WebhookEntry, "secretEnv">): string | undefined {
  return secretValue(env, hook.secretEnv);
}

/** The webhook's callback URL in this environment, if it declares one. */
export function webhookCallbackUrl(env: Env, hook: Pick<WebhookEntry, "callbackUrl">): string | undefined {
  const declared = typeof hook.callbackUrl === "function" ? hook.callbackUrl(env) : hook.callbackUrl;
  return declared === undefined || declared.trim() === "" ? undefined : declared;
}
