/**
 * Makes the identity header for one call: the helper any outbound caller with an `identity`
 * option uses (remote MCP servers now, OpenAPI sources later), so every internal service sees
 * the same claims.
 */
import { randomToken } from "../approvals-page/random-token.ts";
import { loadSigningKeys, signJwt } from "../crypto/es256.ts";
import { secretValue } from "../net/secret-headers.ts";
import { IDENTITY_KEY_SECRET, type IdentityOption } from "./identity-option.ts";

/** Issuer of every identity token, so a service that trusts several signers can tell toolgate's apart. */
export const IDENTITY_ISSUER = "toolgate";

/** Who calls what: what the token says. */
export interface IdentityCall {
  /** The principal (`sub`): the key id, OAuth grant or page user the call runs for. */
  principal: string;
  /** The tool's name as the caller called it. */
  tool: string;
  callId: string;
  /** The `aud` when the option names none: the service's origin. */
  defaultAudience: string;
}

export type IdentityHeader = { ok: true; header: string; token: string } | { ok: false; message: string };

/** The header name and signed token for `call`, or why none can be made (the secret unset or malformed). */
export async function identityHeader(env: Env, option: IdentityOption, call: IdentityCall, now = Date.now()): Promise<IdentityHeader> {
  const secret = secretValue(env, IDENTITY_KEY_SECRET);
  if (secret === undefined) return { ok: false, message: `the ${IDENTITY_KEY_SECRET} secret is not set (docs/identity.md says how to make one)` };
  const keys = await loadSigningKeys(secret);
  if (!keys.ok) return { ok: false, message: `the ${IDENTITY_KEY_SECRET} secret ${keys.message}` };
  const iat = Math.floor(now / 1000);
  const token = await signJwt(keys.keys, {
    iss: IDENTITY_ISSUER,
    sub: call.principal,
    aud: option.audience ?? call.defaultAudience,
    iat,
    exp: iat + option.ttl_minutes * 60,
    // Unique per token, so a service can refuse a replay within the lifetime if it keeps them.
    jti: randomToken(),
    tool: call.tool,
    call_id: call.callId,
  });
  return { ok: true, header: option.header, token };
}
