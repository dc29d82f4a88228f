/**
 * What a call to a `per_user` server needs before and after it runs: the caller's own token
 * source, or the CONNECTION_REQUIRED failure that hands the person a one-time link to connect.
 */
import { ToolFailureError } from "../../../errors/tool-failure.ts";
import type { ToolContext } from "../../../registry/types.ts";
import type { SignInStart } from "../start-sign-in.ts";
import { type UserAuth, userAuth } from "./connection-auth.ts";
import { describeUpstream } from "./upstream.ts";

/** What a connection is to: an MCP server's configuration, or any upstream by its id (upstream.ts). */
export interface ConnectionTarget {
  name: string;
}

/** Makes a connection link for `principal` at the server (start-sign-in.ts, bound to the server's state). */
export type ConnectLink = (env: Env, principal: string, origin: string) => Promise<SignInStart>;

/** The caller's token source; throws CONNECTION_REQUIRED (or unavailable) when there is none to use. */
export async function perUserAuth(server: ConnectionTarget, name: string, ctx: ToolContext, connectLink: ConnectLink): Promise<UserAuth> {
  const found = await userAuth(ctx.env, server.name, ctx.keyId, () => Date.now());
  if (found.ok) return found.auth;
  if (found.unavailable === true) throw new ToolFailureError({ kind: "unavailable", name, reason: found.reason });
  throw await connectionRequired(server, name, ctx, connectLink, found.reason);
}

/** CONNECTION_REQUIRED for this caller, with a fresh one-time link when the door knows its origin. */
export async function connectionRequired(
  server: ConnectionTarget,
  name: string,
  ctx: ToolContext,
  connectLink: ConnectLink,
  reason: string,
): Promise<ToolFailureError> {
  const { label } = describeUpstream(server.name);
  const origin = ctx.origin;
  const link = origin === undefined ? undefined : await connectLink(ctx.env, ctx.keyId, origin);
  if (link !== undefined && !link.ok) {
    return new ToolFailureError({ kind: "unavailable", name, reason: `connecting to ${label} cannot start: ${link.detail}` });
  }
  return new ToolFailureError({
    kind: "connection_required",
    name,
    server: server.name,
    label,
    reason,
    url: link?.signInUrl,
    expiresAt: link?.expiresAt,
  });
}
