/**
 * Issue 15's performance point: `/mcp` `tools/call` of echo with an OAuth access token against
 * the same call with an API key, both for an agent principal holding just the `core` toolset,
 * through the full app (authentication, access policy, rate limits, audit). The token is got the
 * way a client gets one: registration, consent by an approver, the PKCE code exchange
 * (scripts/mcp/oauth-consent.ts). Target: the token within 10% of the key, in workerd CPU per
 * request (the key's over the token's), the median of the paired rounds (issue 33).
 */
import { oauthTokens } from "../../mcp/oauth-consent.ts";
import type { RequestSpec } from "../load.ts";
import { targetCheck } from "../paired-runs.ts";
import { KEYS_PATH } from "../requests.ts";
import { alternatingRounds, versusRows } from "../rounds.ts";
import { type BenchContext, type Scenario, versusColumns } from "../scenario.ts";
import { MCP_ECHO_CALL, MCP_PATH, MCP_PROTOCOL_VERSION } from "./mcp-peers.ts";

const MIN_RATIO = 0.9;

const TOOLSETS = ["core"];

async function createKey(ctx: BenchContext, name: string, role: "agent" | "approver"): Promise<string> {
  const { status, body } = await ctx.client.send({
    method: "POST",
    path: KEYS_PATH,
    body: JSON.stringify({ name, role, toolsets: TOOLSETS }),
    headers: { "content-type": "application/json" },
  });
  const key = status === 201 ? (JSON.parse(body) as { key?: unknown }).key : undefined;
  if (typeof key !== "string") throw new Error(`bench: POST ${KEYS_PATH} answered ${status}: ${body.slice(0, 500)}`);
  return key;
}

const callWith = (token: string): RequestSpec => ({
  method: "POST",
  path: MCP_PATH,
  body: MCP_ECHO_CALL,
  headers: {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": MCP_PROTOCOL_VERSION,
    authorization: `Bearer ${token}`,
  },
});

export const mcpOauth: Scenario = {
  id: "mcp-oauth",
  title: "MCP tools/call of echo on /mcp: an OAuth access token vs an API key (same toolsets, full pipeline)",
  async run(ctx) {
    const { concurrency, rounds, roundMs, warmupMs } = ctx.settings;
    const [agentKey, approverKey] = await Promise.all([createKey(ctx, "bench-oauth-agent", "agent"), createKey(ctx, "bench-oauth-approver", "approver")]);
    const { access_token: accessToken } = await oauthTokens(ctx.origin, approverKey, TOOLSETS);
    const [oauth, key] = await alternatingRounds(
      ctx,
      [
        { label: `POST ${MCP_PATH} with an OAuth access token`, request: callWith(accessToken) },
        { label: `POST ${MCP_PATH} with an API key`, request: callWith(agentKey) },
      ],
      { concurrency, rounds, roundMs, warmupMs },
    );
    if (oauth === undefined || key === undefined) throw new Error("bench: mcp-oauth lost a contender");
    const { cpuRatio, rows } = versusRows(oauth, key, "key");
    return {
      method: `same request but the Authorization header; ${concurrency} in flight, ${rounds} alternating rounds of ${roundMs / 1000} s after a ${warmupMs / 1000} s warm-up; x key = median of per-round req/s ratios against the API key; CPU x key = median of per-round key CPU/req over this one's (1/x, so both read "higher is faster"), the target's figure`,
      columns: versusColumns("key"),
      rows,
      checks: [targetCheck("/mcp tools/call, workerd CPU, OAuth access token vs API key", cpuRatio, { at: "least", value: MIN_RATIO, unit: "x" })],
    };
  },
};
