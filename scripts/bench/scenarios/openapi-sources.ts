/**
 * OpenAPI sources (issue 31) against GitHub's REST description (@octokit/openapi, 13 MB, 1,223
 * operations), served with a stand-in API by this Node process on 127.0.0.1 (serve.ts gives the
 * bench Worker OUTBOUND_ALLOW for it):
 * - registering it at run time: workerd CPU of `POST /v1/openapi-sources` (fetch, parse,
 *   convert, store in KV, register in the isolate), median of a few adds;
 * - registering it at build time: the generator's conversion in Node (convertSpec, as
 *   scripts/gen-registry/apis.ts runs it), median of a few;
 * - `GET /v1/tools?toolset=api-<source>` over it: workerd CPU per request (target < 5 ms);
 * - a call through one of its tools against a hand-written tool (http_request) calling the same
 *   loopback endpoint, both GETs through the full app: CPU per call, paired rounds, median ratio
 *   (target at most 1.2×).
 */
import { readFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { convertSpec } from "../../../src/openapi-sources/convert-spec.ts";
import { loadSpec } from "../../../src/openapi-sources/load-spec.ts";
import { startProbing } from "../../hostile/run-worst-input.ts";
import { cpuPerRequest } from "../cpu-per-request.ts";
import type { RequestSpec } from "../load.ts";
import { spreadOf, targetCheck } from "../paired-runs.ts";
import { BARE_TOOLS_PATH, TOOL_CALLS_PATH, toolCallsBody } from "../requests.ts";
import type { BenchContext, Scenario } from "../scenario.ts";
import { cpuMs } from "../server-cpu.ts";
import { median } from "../stats.ts";

const SOURCE = "benchgh";
const MAX_LIST_CPU_MS = 5;
const MAX_CALL_RATIO = 1.2;
const REPO = { full_name: "bench/repo", description: "A repository the bench serves", stargazers_count: 1, default_branch: "main" };

async function serve(spec: string): Promise<{ server: Server; origin: string }> {
  const body = JSON.stringify(REPO);
  const server = createServer((request, response) => {
    if (request.url === "/github.json") {
      response.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(spec) });
      response.end(spec);
      return;
    }
    response.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
    response.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** workerd CPU of one request, in ms, and its answer. */
async function cpuOfOne(ctx: BenchContext, request: RequestSpec): Promise<{ cpuMs: number; status: number; body: string }> {
  const before = cpuMs(ctx.serverPid);
  const answer = await ctx.client.send(request);
  return { cpuMs: cpuMs(ctx.serverPid) - before, ...answer };
}

export const openapiSources: Scenario = {
  id: "openapi-sources",
  title: "OpenAPI sources: GitHub's 1,223-operation spec registered, listed and called",
  async run(ctx) {
    const specText = await readFile(join(ctx.root, "node_modules/@octokit/openapi/generated/api.github.com.json"), "utf8");
    const { server, origin } = await serve(specText);
    try {
      const adds = ctx.quick ? 1 : 3;
      const create: RequestSpec = {
        method: "POST",
        path: "/v1/openapi-sources",
        body: JSON.stringify({ name: SOURCE, spec: { url: `${origin}/github.json` }, base_url: origin }),
      };
      const remove: RequestSpec = { method: "DELETE", path: `/v1/openapi-sources/${SOURCE}` };
      const runtimeMs: number[] = [];
      // How long the isolate is held: /health probed every 100 ms while the spec is added.
      const heldMs: number[] = [];
      let operations = 0;
      for (let i = 0; i < adds; i++) {
        await ctx.client.send(remove);
        const probing = startProbing(ctx.origin);
        const added = await cpuOfOne(ctx, create);
        heldMs.push(Math.max(...(await probing.stop())));
        if (added.status !== 201) throw new Error(`bench: openapi-sources: adding the source answered ${added.status}: ${added.body.slice(0, 300)}`);
        operations = (JSON.parse(added.body) as { tools: string[] }).tools.length;
        runtimeMs.push(added.cpuMs);
      }

      const buildMs: number[] = [];
      for (let i = 0; i < adds; i++) {
        const t0 = performance.now();
        const loaded = await loadSpec(specText);
        if (!loaded.ok) throw new Error(`bench: openapi-sources: ${loaded.reason}`);
        const converted = await convertSpec(loaded.doc, { source: SOURCE, exclude: [] });
        if (!converted.ok) throw new Error(`bench: openapi-sources: ${converted.reason}`);
        buildMs.push(performance.now() - t0);
      }

      const count = ctx.quick ? 20 : 100;
      const listing = await cpuPerRequest(ctx, { method: "GET", path: `/v1/tools?toolset=api-${SOURCE}` }, count, "openapi-sources");
      const listed = (JSON.parse(listing.first) as { tools: unknown[] }).tools.length;
      const listedKiB = Buffer.byteLength(listing.first) / 1024;
      // The bare twin answers the same bytes without the listing's work: what sending them costs.
      const twin = await cpuPerRequest(ctx, { method: "GET", path: `${BARE_TOOLS_PATH}?toolset=api-${SOURCE}` }, count, "openapi-sources");

      const viaSpec: RequestSpec = { method: "POST", path: TOOL_CALLS_PATH, body: toolCallsBody(`${SOURCE}__repos_get`, { owner: "bench", repo: "repo" }) };
      const byHand: RequestSpec = {
        method: "POST",
        path: TOOL_CALLS_PATH,
        body: toolCallsBody("http_request", { url: `${origin}/repos/bench/repo`, method: "GET" }),
      };
      const ratios: number[] = [];
      const specCpu: number[] = [];
      const handCpu: number[] = [];
      const perRound = ctx.quick ? 20 : 150;
      for (let round = 0; round < Math.max(5, ctx.settings.rounds); round++) {
        const a = await cpuPerRequest(ctx, viaSpec, perRound, "openapi-sources");
        const b = await cpuPerRequest(ctx, byHand, perRound, "openapi-sources");
        const callResult = (JSON.parse(a.first) as { results: { status: string }[] }).results[0];
        if (callResult?.status !== "ok") throw new Error(`bench: openapi-sources: the OpenAPI tool answered ${a.first.slice(0, 300)}`);
        specCpu.push(a.cpuUs);
        handCpu.push(b.cpuUs);
        ratios.push(a.cpuUs / b.cpuUs);
      }
      await ctx.client.send(remove);
      const ratio = median(ratios);
      const listCpuMs = listing.cpuUs / 1000;
      return {
        method: `runtime: ${adds} adds of the source, workerd CPU of each POST; build time: loadSpec + convertSpec in Node, ${adds} times; listing: ${count} sequential GETs; calls: ${ratios.length} paired rounds of ${perRound} sequential calls each (OpenAPI tool, then http_request, same loopback GET), full app with the admin token`,
        columns: [
          { key: "value", header: "median", digits: 2 },
          { key: "spread", header: "min-max", digits: 2 },
        ],
        rows: [
          {
            label: `register at run time (POST, ${operations} tools), workerd CPU ms`,
            values: { value: median(runtimeMs), spread: Math.max(...runtimeMs) - Math.min(...runtimeMs) },
          },
          {
            label: "longest /health wait while it registers, ms",
            values: { value: median(heldMs), spread: Math.max(...heldMs) - Math.min(...heldMs) },
            note: "the isolate held by parsing and $ref resolution, which run as single blocks",
          },
          { label: "register at build time (convert in Node), ms", values: { value: median(buildMs), spread: Math.max(...buildMs) - Math.min(...buildMs) } },
          {
            label: `GET /v1/tools?toolset=api-${SOURCE} (${listed} tools, ${listedKiB.toFixed(0)} KiB), workerd CPU ms`,
            values: { value: listCpuMs, spread: 0 },
          },
          {
            label: "the same bytes from the bare twin, workerd CPU ms",
            values: { value: twin.cpuUs / 1000, spread: 0 },
            note: "routing and sending 1.7 MB, no listing",
          },
          { label: "call via OpenAPI tool, workerd CPU us", values: { value: median(specCpu), spread: Math.max(...specCpu) - Math.min(...specCpu) } },
          { label: "call via http_request, workerd CPU us", values: { value: median(handCpu), spread: Math.max(...handCpu) - Math.min(...handCpu) } },
          {
            label: "ratio OpenAPI / http_request",
            values: { value: ratio, spread: Math.max(...ratios) - Math.min(...ratios) },
            note: `rounds: ${ratios.map((r) => r.toFixed(2)).join(", ")}`,
          },
        ],
        checks: [
          {
            label: `GET /v1/tools?toolset=api-${SOURCE} workerd CPU`,
            target: `< ${MAX_LIST_CPU_MS} ms`,
            actual: `${listCpuMs.toFixed(2)} ms`,
            pass: listCpuMs < MAX_LIST_CPU_MS,
          },
          targetCheck("OpenAPI tool call vs hand-written tool, CPU", spreadOf(ratios), { at: "most", value: MAX_CALL_RATIO, unit: "x" }),
          { label: "every operation registered", target: "> 1,200 tools", actual: `${operations}`, pass: operations > 1_200 },
        ],
      };
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  },
};
