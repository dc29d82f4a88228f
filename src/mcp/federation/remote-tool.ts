/**
 * One remote MCP tool as a registry entry: its schema is the server's, its handler a
 * `tools/call` through the MCP client under the server's breaker, its availability check "the
 * server answers" (shared by all the server's tools, so one probe covers them), its gate the
 * pinning decision.
 */
import { ToolFailureError } from "../../errors/tool-failure.ts";
import { breakers } from "../../execution/circuit-breaker.ts";
import { callIdentityHeaders } from "../../identity/call-identity.ts";
import { IDENTITY_KEY_SECRET } from "../../identity/identity-option.ts";
import type { CredentialKind } from "../../registry/credential-kind.ts";
import type { AvailabilityCheck, ToolContext, ToolSpec } from "../../registry/types.ts";
import { McpClientError } from "../client/json-rpc.ts";
import type { McpAuth, McpClient, RemoteTool } from "../client/mcp-client.ts";
import type { UserAuth } from "./connections/connection-auth.ts";
import { type ConnectLink, connectionRequired, perUserAuth } from "./connections/per-user-call.ts";
import type { ExchangeAuth } from "./exchange-auth.ts";
import { callResume, questionForwarder } from "./forward-questions.ts";
import type { RemoteValidator } from "./json-schema-validator.ts";
import { countsAgainstServer, remoteFailure } from "./remote-failure.ts";
import { renderResult, resultText } from "./remote-result.ts";
import type { McpServerConfig } from "./server-config.ts";

/** The reference client's breaker: 3 consecutive failures open it for 60 s, then one probe. */
const MCP_SERVER_BREAKER = { failureThreshold: 3, cooldownMs: 60_000 } as const;

const mcpServerBreakerKey = (server: string): string => `mcp:${server}`;

export interface RemoteToolParts {
  server: McpServerConfig;
  tool: RemoteTool;
  /** The registry name (`mcp__<server>__<tool>`). */
  name: string;
  toolset: string;
  parameters: Record<string, unknown>;
  validator: RemoteValidator;
  /**
   * A client for one call; `callHeaders` are headers made for that call alone (its identity
   * token), `auth` the caller's own token source at a `per_user` server.
   */
  clientFor: (env: Env, callHeaders?: Readonly<Record<string, string>>, auth?: McpAuth) => McpClient;
  /** Makes a per-user connection link (start-sign-in.ts), for CONNECTION_REQUIRED. */
  connectLink: ConnectLink;
  /** The caller's exchanged token source at a `token_exchange` server (exchange-auth.ts, bound to the server's state). */
  exchangeAuth: (ctx: ToolContext, name: string) => Promise<ExchangeAuth>;
  check: AvailabilityCheck;
  gate: () => string | undefined;
  /** Whether calls carry a deployment credential: a secret header, or the token of an admin's sign-in. */
  sharesCredential: () => boolean;
}

/** The spec to register for one remote tool. */
export function remoteToolSpec(parts: RemoteToolParts): ToolSpec {
  const { server, tool, name } = parts;
  const host = new URL(server.url).host;
  return {
    name,
    toolset: parts.toolset,
    schema: parts.validator.schema,
    parameters: parts.parameters,
    description: tool.description ?? `MCP tool ${tool.name} from ${server.name}`,
    // A missing secret makes the tools unavailable rather than failing every call with a 401.
    requiresEnv: [
      ...Object.values(server.headers).map((ref) => ref.secret),
      ...(server.identity === undefined ? [] : [IDENTITY_KEY_SECRET]),
      ...(server.auth_mode === "token_exchange" && server.token_exchange !== undefined ? [server.token_exchange.client_secret.secret] : []),
    ],
    check: parts.check,
    gate: parts.gate,
    timeoutMs: server.timeout_ms,
    // A remote tool's side effects are unknown: a call that may have run is never replayed.
    retry: { maxAttempts: 1 },
    handler: async function callRemoteTool(args: unknown, ctx) {
      const breaker = breakers.get(mcpServerBreakerKey(server.name));
      const admission = breaker.admit(MCP_SERVER_BREAKER, Date.now());
      if (!admission.admitted) {
        throw new ToolFailureError({
          kind: "circuit_open",
          name,
          scope: "host",
          target: `MCP server '${server.name}'`,
          retryAfterMs: admission.retryAfterMs,
          failures: admission.failures,
        });
      }
      const signal = ctx.signal;
      let callHeaders: Readonly<Record<string, string>> | undefined;
      let userAuth: UserAuth | undefined;
      let exchanged: ExchangeAuth | undefined;
      try {
        callHeaders = await callIdentityHeaders(server.identity, ctx, new URL(server.url).origin, `MCP server '${server.name}'`);
        if (server.auth_mode === "per_user") userAuth = await perUserAuth(server, name, ctx, parts.connectLink);
        else if (server.auth_mode === "token_exchange") exchanged = await parts.exchangeAuth(ctx, name);
      } catch (error) {
        // Nothing was sent: no verdict on the server, and a probe admitted for this call frees its slot.
        breaker.released(admission.probe);
        throw error;
      }
      const credential = credentialOf(server, parts, userAuth !== undefined ? "own" : exchanged !== undefined ? "exchanged" : undefined);
      if (credential !== undefined) ctx.reportCredential(credential);
      let result;
      try {
        const answer = questionForwarder(name, server.name, ctx.client);
        const client = parts.clientFor(ctx.env, callHeaders, userAuth ?? exchanged);
        result = await client.callTool(tool.name, args as Record<string, unknown>, signal, answer, callResume(ctx.client.resume));
      } catch (error) {
        // The call's own client could not answer what the server asked: the server is fine.
        if (error instanceof ToolFailureError) {
          breaker.succeeded(admission.probe);
          throw error;
        }
        if (signal.aborted) breaker.released(admission.probe);
        else if (countsAgainstServer(error)) breaker.failed(MCP_SERVER_BREAKER, Date.now(), admission.probe);
        else breaker.succeeded(admission.probe);
        // The person's own credentials were refused: theirs to renew, not the server's fault.
        if (userAuth !== undefined && error instanceof McpClientError && error.kind === "unauthorized") {
          throw await connectionRequired(server, name, ctx, parts.connectLink, userAuth.refused ?? `the server refused your connection (${error.message})`);
        }
        if (exchanged !== undefined && error instanceof McpClientError && error.kind === "unauthorized") {
          throw (
            exchanged.renewFailure ??
            new ToolFailureError({
              kind: "token_exchange_failed",
              name,
              server: server.name,
              problem: "refused",
              detail: `the server refused the exchanged token, and a new exchange did not help (${error.message})`,
              oauthError: undefined,
            })
          );
        }
        throw new ToolFailureError(remoteFailure(name, server.name, host, error));
      }
      breaker.succeeded(admission.probe);
      if (result.isError) {
        throw new ToolFailureError({
          kind: "remote_tool_error",
          name,
          server: server.name,
          detail: resultText(result) || "the tool reported an error without text",
        });
      }
      return renderResult(result);
    },
  };
}

/**
 * The credential the audit record names: the caller's own at a `per_user` server, or the token
 * exchanged for it at a `token_exchange` one (an identity token beside either is a claim, not the
 * authority); else the deployment's when it has one; else the identity token alone.
 */
function credentialOf(server: McpServerConfig, parts: RemoteToolParts, callers: "own" | "exchanged" | undefined): CredentialKind | undefined {
  if (callers !== undefined) return callers;
  if (parts.sharesCredential()) return "shared";
  return server.identity === undefined ? undefined : "identity";
}
