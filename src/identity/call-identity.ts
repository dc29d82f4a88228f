/**
 * The identity header of one tool call, for every outbound caller that takes the `identity`
 * option (remote MCP servers, OpenAPI sources): one place decides the claims and what a key
 * that cannot sign means for the call.
 */
import { ToolFailureError } from "../errors/tool-failure.ts";
import type { ToolContext } from "../registry/types.ts";
import type { IdentityOption } from "./identity-option.ts";
import { identityHeader } from "./identity-token.ts";

/**
 * The header naming the caller, or undefined without the option. A key that cannot sign
 * (malformed secret) makes the tool unavailable rather than calling without the identity the
 * service expects.
 *
 * @param upstream how the failure names the target (`MCP server 'billing'`, `source 'crm'`).
 * @example const headers = await callIdentityHeaders(config.identity, ctx, new URL(baseUrl).origin, `source '${config.name}'`);
 */
export async function callIdentityHeaders(
  option: IdentityOption | undefined,
  ctx: Pick<ToolContext, "env" | "keyId" | "toolName" | "callId">,
  defaultAudience: string,
  upstream: string,
): Promise<Record<string, string> | undefined> {
  if (option === undefined) return undefined;
  const made = await identityHeader(ctx.env, option, { principal: ctx.keyId, tool: ctx.toolName, callId: ctx.callId, defaultAudience });
  if (!made.ok) throw new ToolFailureError({ kind: "unavailable", name: ctx.toolName, reason: `${upstream} needs an identity token: ${made.message}` });
  return { [made.header]: made.token };
}
