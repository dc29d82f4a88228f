/**
 * Issue 33's start-up: the Active CPU of each Worker's start-up, measured as `wrangler check
 * startup` does (scripts/bench/startup-profile.ts), for toolgate's production build (`wrangler
 * deploy --dry-run`, the real wrangler.toml) and the three peers the MCP comparison serves
 * (bench/peers/); and a cold isolate's first request: start-up plus one MCP `tools/call` of echo.
 * A tool gateway sees sporadic traffic, so many requests land on a cold isolate and pay this.
 *
 * Each run is a fresh workerd per Worker, the Workers interleaved run by run so a busy moment
 * of the shared machine falls on all of them; figures are medians over runs, with the spread.
 * The target is toolgate at most the `@hono/mcp` peer's start-up. A multiple of the peer's is a
 * guard (GUARD_VS_PEER): past it the bench exits non-zero, so CI's quick bench catches a
 * regression.
 */
import { join } from "node:path";
import { measureBundleSize } from "../../bundle-size.ts";
import { formatSpread, paired, spreadOf, targetCheck } from "../paired-runs.ts";
import { AGENTS_MCP_PEER, BARE_PEER, HONO_MCP_PEER } from "../peers.ts";
import type { Check, Row, Scenario } from "../scenario.ts";
import { migrationStatements, readConfigOptions } from "../serve.ts";
import { type FirstRequest, profileStartup, STARTUP_HOST, type StartupRun, type StartupWorker } from "../startup-profile.ts";
import { median } from "../stats.ts";
import { echoed, MCP_ECHO_CALL, MCP_HEADERS, MCP_PATH } from "./mcp-peers.ts";

/** The target: at most the peer's start-up CPU (workerd's, over the same span `wrangler check startup` profiles). */
const TARGET_VS_PEER = 1;
/**
 * The CI guard: past this the run fails, as issue 33 asks (twice the peer's). Start-up measured
 * 0.65x-0.73x of the peer's workerd CPU once the HTTP app was built at the first request
 * (src/index.ts; medians of paired runs on the loaded shared machine), and single runs spread
 * to 0.3x-2.4x there, so a tighter guard would fail CI on noise. It reads workerd's scheduler
 * CPU, not the profile's Active, which spread 1.9x-3.2x between runs of one build.
 */
const GUARD_VS_PEER = 2;
const ADMIN_TOKEN = "startup-bench-admin-token";

const LABELS: Record<string, string> = {
  toolgate: "toolgate (production build)",
  [HONO_MCP_PEER]: "@hono/mcp + SDK McpServer",
  [AGENTS_MCP_PEER]: "agents createMcpHandler",
  [BARE_PEER]: "bare Hono app",
};

function echoCall(authorization?: string): FirstRequest {
  return {
    path: MCP_PATH,
    body: MCP_ECHO_CALL,
    headers: { ...MCP_HEADERS, "content-type": "application/json", ...(authorization === undefined ? {} : { authorization }) },
    check(status, body) {
      const text = status === 200 ? echoed(body) : undefined;
      if (text === undefined || !text.includes("hi")) throw new Error(`startup: the first tools/call did not echo: ${status} ${body.slice(0, 300)}`);
    },
  };
}

export const startup: Scenario = {
  id: "startup",
  title: "Start-up Active CPU (as `wrangler check startup`) and a cold isolate's first tools/call: toolgate vs the MCP peers",
  needsPeers: true,
  async run(ctx) {
    const runs = ctx.quick ? 3 : 5;
    const configPath = join(ctx.root, "wrangler.toml");
    const built = measureBundleSize(ctx.root, ".bench/startup/toolgate");
    const folder = join(ctx.root, ".bench/startup/toolgate");
    const main = built.modules.find((m) => m.name.endsWith(".js"));
    if (main === undefined) throw new Error("startup: wrangler emitted no .js module");
    const toolgate: StartupWorker = {
      modules: [
        { type: "ESModule", path: join(folder, main.name) },
        ...built.modules.filter((m) => m.name.endsWith(".wasm")).map((m) => ({ type: "CompiledWasm" as const, path: join(folder, m.name) })),
      ],
      config: readConfigOptions(configPath),
      vars: { ADMIN_TOKEN },
      async setUp(mf) {
        const db = await mf.getD1Database("DB", STARTUP_HOST);
        await db.batch(migrationStatements(configPath).map((statement) => db.prepare(statement)));
      },
    };
    const workers: { name: string; worker: StartupWorker; first: FirstRequest }[] = [
      { name: "toolgate", worker: toolgate, first: echoCall(`Bearer ${ADMIN_TOKEN}`) },
      ...(ctx.peers ?? []).map((peer) => ({
        name: peer.name,
        worker: { modules: [{ type: "ESModule" as const, path: peer.ownScriptPath }] },
        first: echoCall(),
      })),
    ];
    const results = new Map<string, StartupRun[]>(workers.map((w) => [w.name, []]));
    for (let i = 0; i < runs; i++) {
      for (const { name, worker, first } of workers) results.get(name)?.push(await profileStartup(worker, first));
    }

    const startupMs = (name: string) => (results.get(name) ?? []).map((r) => r.startup.activeMs);
    const firstMs = (name: string) => (results.get(name) ?? []).map((r) => r.startup.activeMs + r.firstCall.activeMs);
    const rows: Row[] = workers.map(({ name }) => {
      const all = results.get(name) ?? [];
      return {
        label: LABELS[name] ?? name,
        values: {
          startupMs: median(startupMs(name)),
          gcMs: median(all.map((r) => r.startup.garbageCollectionMs)),
          firstMs: median(firstMs(name)),
          callMs: median(all.map((r) => r.firstCall.activeMs)),
          cpuMs: median(all.map((r) => r.workerdCpuMs.startup)),
          firstCpuMs: median(all.map((r) => r.workerdCpuMs.startup + r.workerdCpuMs.firstCall)),
        },
        note: `start-up ${formatSpread(spreadOf(startupMs(name)), "ms")}; first request ${formatSpread(spreadOf(firstMs(name)), "ms")}`,
        perRound: { startupMs: startupMs(name), firstMs: firstMs(name) },
      };
    });

    // Issue 33: every ratio is workerd CPU, the median of per-run ratios (run i of toolgate beside
    // run i of the peer, measured one after the other), printed with its spread. The profile's
    // Active stays in the table: on the shared machine it spread 1.9x-3.2x between runs of one build.
    const checks: Check[] = [];
    const peerLabel = LABELS[HONO_MCP_PEER] ?? HONO_MCP_PEER;
    const cpuOf = (name: string, of: (run: StartupRun) => number) => (results.get(name) ?? []).map(of);
    const pairedRatios = (of: (run: StartupRun) => number) => paired(cpuOf("toolgate", of), cpuOf(HONO_MCP_PEER, of), (ours, peer) => ours / peer);
    const startupRatios = pairedRatios((r) => r.workerdCpuMs.startup);
    const firstRatios = pairedRatios((r) => r.workerdCpuMs.startup + r.workerdCpuMs.firstCall);
    if (startupRatios.length > 0) {
      // Off Linux there is no scheduler figure: the ratios then read the profile's Active.
      const ratios = spreadOf(startupRatios.some(Number.isNaN) ? pairedRatios((r) => r.startup.activeMs) : startupRatios);
      checks.push(targetCheck(`start-up workerd CPU, toolgate vs ${peerLabel}`, ratios, { at: "most", value: TARGET_VS_PEER, unit: "x" }));
      if (!firstRatios.some(Number.isNaN)) {
        checks.push(
          targetCheck(`cold isolate's first tools/call (start-up + call), workerd CPU, toolgate vs ${peerLabel}`, spreadOf(firstRatios), {
            at: "most",
            value: TARGET_VS_PEER,
            unit: "x",
          }),
        );
      }
      checks.push(
        targetCheck(`start-up guard (fails the run): toolgate vs ${peerLabel}, workerd CPU`, ratios, { at: "most", value: GUARD_VS_PEER, unit: "x" }, true),
      );
    }
    return {
      method: `${runs} runs, each a fresh workerd per Worker whose entry import()s the Worker inside a request under V8's CPU profiler (default interval), as wrangler check startup does; Active = sampled time less idle, GC included; first request = start-up + a tools/call of echo on the same cold isolate (toolgate's with ADMIN_TOKEN, its Durable Objects and queues served by a second copy); medians, spread in the note; workerd CPU = the scheduler's account of workerd's threads over the same span (profiler overhead included; not inflated by other processes)`,
      columns: [
        { key: "startupMs", header: "start-up Active ms", digits: 1 },
        { key: "gcMs", header: "of it GC ms", digits: 1 },
        { key: "callMs", header: "first call ms", digits: 1 },
        { key: "firstMs", header: "first request ms", digits: 1 },
        { key: "cpuMs", header: "start-up workerd CPU ms", digits: 1 },
        { key: "firstCpuMs", header: "first request workerd CPU ms", digits: 1 },
      ],
      rows,
      checks,
    };
  },
};
