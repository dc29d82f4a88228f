/**
 * Issue 6's performance point: a `tools/call` of the same trivial echo tool answered by
 * toolgate's /mcp (the full app: agent key, access policy, rate limits, audit), by `@hono/mcp`
 * with the official SDK's server, and by Cloudflare's `agents` `createMcpHandler`, each against
 * a bare Hono route answering the same bytes; all in the one workerd, each on its own direct
 * socket, in alternating rounds. Also the gzip size of each bundle, all bundled by the same
 * function with the same settings (scripts/bench/build-worker.ts).
 *
 * Every server gets the same 2025-era request (protocol 2025-11-25, stateless, no session):
 * the newest revision all of them speak. toolgate also answers the same call in the 2026-07-28
 * era (envelope in `_meta`, routing headers checked), as an arm of its own: what the modern
 * checks and result fields cost beside the 2025 lane.
 *
 * Targets (issues 29 and 33): toolgate's workerd CPU per call at most 1/1.5 of `@hono/mcp`'s, both
 * without audit (the peers keep none; toolgate's per-call log line and span, which every call
 * pays as shipped, stay in), once for each era toolgate serves: the 2025 lane and the
 * 2026-07-28 era, which issue 29 names first. Each is its own target line, the median of the
 * paired rounds with its spread, so neither era can pass on the other's figure. toolgate with
 * its audit (queue, consumer and D1 counted, each round waiting untimed for its rows) is
 * reported beside them. The bundles' gzip sizes are reported, no longer a target: a peer is a bare
 * server, and the startup scenario measures what a bundle costs a user, its start-up.
 */

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { bundleWorker, workerAlias } from "../build-worker.ts";
import type { LoadClient, RequestSpec } from "../load.ts";
import { paired, pairedSpread, spreadOf, targetCheck } from "../paired-runs.ts";
import { AGENTS_MCP_PEER, BARE_PEER, HONO_MCP_PEER } from "../peers.ts";
import { FULL_NO_AUDIT_PIPELINE, PIPELINE_HEADER } from "../requests.ts";
import { alternatingRounds, type Contender, perRound } from "../rounds.ts";
import { type BenchContext, type Check, type Scenario, versusColumns } from "../scenario.ts";
import { median } from "../stats.ts";

/** `@hono/mcp`'s CPU per call over toolgate's, both without audit. */
const MIN_CPU_RATIO_VS_HONO = 1.5;
export const MCP_PATH = "/mcp";
export const MCP_PROTOCOL_VERSION = "2025-11-25";
/** A tools/call of echo, as an MCP client sends it over Streamable HTTP without a session. */
export const MCP_ECHO_CALL = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "echo", arguments: { text: "hi" } } });
export const MCP_HEADERS = { accept: "application/json, text/event-stream", "mcp-protocol-version": MCP_PROTOCOL_VERSION };
export const MODERN_VERSION = "2026-07-28";
/** The same call as a 2026-07-28 client sends it: the envelope in `_meta`, the routing headers beside it. */
export const MODERN_ECHO_CALL = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "tools/call",
  params: {
    name: "echo",
    arguments: { text: "hi" },
    _meta: { "io.modelcontextprotocol/protocolVersion": MODERN_VERSION, "io.modelcontextprotocol/clientCapabilities": {} },
  },
});
export const MODERN_HEADERS = {
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": MODERN_VERSION,
  "mcp-method": "tools/call",
  "mcp-name": "echo",
};

const TOOLGATE_LABEL = "toolgate /mcp (agent key, full pipeline) without audit";
const TOOLGATE_AUDITED_LABEL = "toolgate /mcp (agent key, full pipeline) with its audit";
const TOOLGATE_MODERN_LABEL = "toolgate /mcp, 2026-07-28 era, without audit";

const LABELS: Record<string, string> = {
  [BARE_PEER]: "bare Hono route",
  [HONO_MCP_PEER]: "@hono/mcp + SDK McpServer",
  [AGENTS_MCP_PEER]: "agents createMcpHandler",
};

/** The echo text in an answer, JSON or one SSE event; undefined when the call did not succeed. */
export function echoed(body: string): string | undefined {
  const json = body.startsWith("{") ? body : /^data: (.*)$/m.exec(body)?.[1];
  if (json === undefined) return undefined;
  const parsed = JSON.parse(json) as { result?: { isError?: boolean; content?: { type?: string; text?: string }[] } };
  if (parsed.result === undefined || parsed.result.isError === true) return undefined;
  return parsed.result.content?.map((c) => c.text ?? "").join("");
}

/** Sends the call once and insists it echoed (toolgate's echo answers its result as JSON text). */
async function assertEchoes(label: string, client: LoadClient, request: RequestSpec): Promise<void> {
  const { status, body } = await client.send(request);
  const text = status === 200 ? echoed(body) : undefined;
  if (text === undefined || !text.includes("hi")) throw new Error(`bench: ${label} did not echo: ${status} ${body.slice(0, 500)}`);
}

/** toolgate's bundle, by the same function and settings as the peers' (src/index.ts, minified, wrangler.toml's [alias]). */
async function toolgateGzipBytes(ctx: BenchContext): Promise<{ bytes: number; gzipBytes: number }> {
  const alias = workerAlias(join(ctx.root, "wrangler.toml"));
  const outfile = await bundleWorker(join(ctx.root, "src/index.ts"), join(ctx.root, ".bench/peers/toolgate.mjs"), { alias });
  const content = readFileSync(outfile);
  return { bytes: content.byteLength, gzipBytes: gzipSync(content).byteLength };
}

export const mcpPeers: Scenario = {
  id: "mcp-peers",
  title: "MCP tools/call of echo: toolgate /mcp (full pipeline) vs @hono/mcp and agents createMcpHandler, vs a bare Hono route",
  needsPeers: true,
  async run(ctx) {
    const { concurrency, rounds, roundMs, warmupMs } = ctx.settings;
    const peers = ctx.peers ?? [];
    const request: RequestSpec = { method: "POST", path: MCP_PATH, body: MCP_ECHO_CALL, headers: MCP_HEADERS };
    const contenders: (Contender & { gzipBytes: number; bytes: number })[] = peers.map((peer) => ({
      label: LABELS[peer.name] ?? peer.name,
      request,
      client: peer.client,
      bytes: peer.bytes,
      gzipBytes: peer.gzipBytes,
    }));
    const toolgateCall: RequestSpec = { ...request, headers: { ...MCP_HEADERS, authorization: `Bearer ${ctx.agentKey}` } };
    const toolgateServes = (await ctx.client.send(toolgateCall)).status !== 404;
    const toolgateSize = await toolgateGzipBytes(ctx);
    const noAudit = { [PIPELINE_HEADER]: FULL_NO_AUDIT_PIPELINE };
    if (toolgateServes) {
      contenders.push({ label: TOOLGATE_LABEL, request: { ...toolgateCall, headers: { ...toolgateCall.headers, ...noAudit } }, ...toolgateSize });
      // Audited: its round waits for its records to reach D1 (rounds.ts), so the queue's
      // consumer does not run during a peer's round, and its CPU is counted in this arm's.
      contenders.push({ label: TOOLGATE_AUDITED_LABEL, request: toolgateCall, ...toolgateSize, audited: true });
      contenders.push({
        label: TOOLGATE_MODERN_LABEL,
        request: {
          method: "POST",
          path: MCP_PATH,
          body: MODERN_ECHO_CALL,
          headers: { ...MODERN_HEADERS, authorization: `Bearer ${ctx.agentKey}`, ...noAudit },
        },
        ...toolgateSize,
      });
    }
    for (const c of contenders) await assertEchoes(c.label, c.client ?? ctx.client, c.request);

    // Settled after every round (rounds.ts) matters here: the audited arm's queue consumer and D1
    // writes outlast its round, and the arm after it is one of the targets' two unaudited arms.
    const figures = await alternatingRounds(ctx, contenders, { concurrency, rounds, roundMs, warmupMs });
    const bare = figures[contenders.findIndex((c) => c.label === LABELS[BARE_PEER])];
    if (bare === undefined) throw new Error("bench: mcp-peers has no bare route to compare with");
    const hono = figures.find((f) => f.label === LABELS[HONO_MCP_PEER]);
    const rows = figures.map((f, i) => ({
      label: f.label,
      values: {
        rps: median(f.rps),
        p50: median(f.p50Ms),
        p99: median(f.p99Ms),
        vsBare: median(paired(f.rps, bare.rps, (a, b) => a / b)),
        cpuUs: median(f.serverCpuUs),
        cpuVsHono: hono === undefined ? Number.NaN : median(paired(hono.serverCpuUs, f.serverCpuUs, (h, t) => h / t)),
        gzipKib: (contenders[i]?.gzipBytes ?? Number.NaN) / 1024,
      },
      note: `CPU us/call per round ${f.serverCpuUs.map((r) => r.toFixed(0)).join(" ")}`,
      perRound: perRound(f),
    }));
    if (!toolgateServes) {
      rows.push({
        label: "toolgate /mcp",
        values: {
          rps: Number.NaN,
          p50: Number.NaN,
          p99: Number.NaN,
          vsBare: Number.NaN,
          cpuUs: Number.NaN,
          cpuVsHono: Number.NaN,
          gzipKib: toolgateSize.gzipBytes / 1024,
        },
        note: "not measured: this build has no /mcp route (answered 404)",
        perRound: {},
      });
    }

    const target = { at: "least", value: MIN_CPU_RATIO_VS_HONO, unit: "x" } as const;
    // One line per era; an arm that did not run (no /mcp route) reads "unknown" and fails.
    const eraCheck = (toolgateLabel: string, era: string): Check => {
      const toolgate = figures.find((f) => f.label === toolgateLabel);
      const ratio = toolgate === undefined || hono === undefined ? spreadOf([]) : pairedSpread(hono.serverCpuUs, toolgate.serverCpuUs, (h, t) => h / t);
      return targetCheck(`/mcp tools/call, ${era}, workerd CPU per call, ${LABELS[HONO_MCP_PEER]}'s over toolgate's (both without audit)`, ratio, target);
    };
    const checks: Check[] = [eraCheck(TOOLGATE_LABEL, `the 2025 lane (${MCP_PROTOCOL_VERSION})`), eraCheck(TOOLGATE_MODERN_LABEL, `the ${MODERN_VERSION} era`)];
    return {
      method: `POST ${MCP_PATH} tools/call echo, MCP-Protocol-Version ${MCP_PROTOCOL_VERSION}, no session; ${concurrency} in flight, ${rounds} alternating rounds of ${roundMs / 1000} s after a ${warmupMs / 1000} s warm-up, each round settled (its trailing CPU counted in it), then collected uncounted (scripts/bench/rounds.ts); x bare = median of per-round req/s ratios; CPU x @hono/mcp = median of per-round @hono/mcp CPU/call over this one's (toolgate's two arms without audit, 2025 lane and 2026-07-28 era, are the targets' figures); "without audit" = the bench Worker's full app less its audit, its per-call log line and span kept (${PIPELINE_HEADER}: ${FULL_NO_AUDIT_PIPELINE}); gzip = the bundle esbuild makes with wrangler's settings, minified (agents answers a 2025-era request as one SSE event; the others as JSON)`,
      columns: [...versusColumns("bare"), { key: "cpuVsHono", header: "CPU x @hono/mcp", digits: 2 }, { key: "gzipKib", header: "bundle gzip KiB", digits: 1 }],
      rows,
      checks,
    };
  },
};
