/**
 * A CPU profile of the bench Worker's isolate under load, taken through workerd's V8 inspector:
 * `--cpu-prof` on the Node side would profile the load generator, not the Worker. Serves the
 * bench Worker as `npm run bench` does, sends `--seconds` of single echo calls to one pipeline,
 * and prints the functions with the most self time (and the share of samples per source file),
 * so a cost shows up by name. The full profile is written for DevTools as well.
 *
 * What it cannot see: Miniflare's own Workers (the queue broker, the D1 and KV simulators) run
 * in other isolates of the same workerd process; their cost shows only in `npm run bench`'s
 * "workerd CPU us/req".
 *
 * @example
 * ```sh
 * node scripts/bench/profile.ts --pipeline=full --seconds=6
 * node scripts/bench/profile.ts --pipeline=core --port=9251
 * node scripts/bench/profile.ts --mcp            # POST /mcp tools/call echo (full app), as mcp-peers' agent key sends it
 * node scripts/bench/profile.ts --mcp --modern   # the same call in the 2026-07-28 era (mcp-peers' modern arm)
 * node scripts/bench/profile.ts --mcp --inclusive # time under each function (its callees included), not self time
 * node scripts/bench/profile.ts --chat           # POST /v1/chat/completions: an agent run of two turns
 * node scripts/bench/profile.ts --chat --turns=6 # the same with 6 echo turns, where the per-turn cost dominates
 * node scripts/bench/profile.ts --all            # every isolate at once (queue broker, D1, KV too)
 * node scripts/bench/profile.ts --heap           # bytes allocated per request, by function (what feeds GC)
 * ```
 */
import { writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { buildBenchWorker } from "./build-worker.ts";
import { connectInspector } from "./inspector.ts";
import { LoadClient, type RequestSpec } from "./load.ts";
import { ECHO_CALL_BODY, FULL_PIPELINE, KEYS_PATH, PIPELINE_HEADER, TOOL_CALLS_PATH } from "./requests.ts";
import { chatBody } from "./scenarios/agent-turn.ts";
import { MCP_ECHO_CALL, MCP_HEADERS, MCP_PATH, MODERN_ECHO_CALL, MODERN_HEADERS } from "./scenarios/mcp-peers.ts";
import { serveWorker } from "./serve.ts";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
}

const arg = (name: string, fallback: string): string => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const pipeline = arg("pipeline", FULL_PIPELINE);
/** What was profiled, for the output and the profile's file name: /mcp runs the full app. */
const mcp = process.argv.includes("--mcp") || process.argv.includes("--modern");
const modern = process.argv.includes("--modern");
const label = mcp ? (modern ? "mcp-modern" : "mcp") : process.argv.includes("--chat") ? "chat" : pipeline;
/** `--inclusive`: rank functions by the time spent in them and their callees, which is where a whole stage's cost shows. */
const inclusive = process.argv.includes("--inclusive");
const seconds = Number(arg("seconds", "6"));
const inspectorPort = Number(arg("port", "9250"));
const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/**
 * Self time per function and per file, in ms, most first. Each sample counts as the profile's
 * mean sampling period: a sample's own time delta is no good, since it also holds whatever
 * gap came before it (the thread running another isolate, say).
 */
function summarise(profile: Profile): { functions: [string, number][]; files: [string, number][]; totalMs: number } {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  const sampleMs = (profile.endTime - profile.startTime) / 1000 / Math.max(1, profile.samples.length);
  for (const id of profile.samples) self.set(id, (self.get(id) ?? 0) + sampleMs);
  const functions = new Map<string, number>();
  const files = new Map<string, number>();
  let totalMs = 0;
  for (const [id, ms] of self) {
    const frame = byId.get(id)?.callFrame;
    if (frame === undefined) continue;
    totalMs += ms;
    const file = frame.url === "" ? "(native)" : frame.url.replace(/^.*\//, "");
    const name = frameName(frame);
    functions.set(name, (functions.get(name) ?? 0) + ms);
    files.set(file, (files.get(file) ?? 0) + ms);
  }
  const top = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]);
  return { functions: top(inclusive ? inclusiveTimes(profile, byId, self) : functions), files: top(files), totalMs };
}

const frameName = (frame: ProfileNode["callFrame"]): string =>
  `${frame.functionName || "(anonymous)"}  ${frame.url === "" ? "(native)" : frame.url.replace(/^.*\//, "")}:${frame.lineNumber + 1}`;

/**
 * Each sample's time added to every function on its stack, once per function even when it
 * recurses: what a call costs with everything it calls, so two requests' profiles can be
 * diffed stage by stage (self time spreads one stage over many leaves).
 */
function inclusiveTimes(profile: Profile, byId: Map<number, ProfileNode>, self: Map<number, number>): Map<string, number> {
  const parents = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);
  const times = new Map<string, number>();
  for (const [id, ms] of self) {
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parents.get(at)) {
      const frame = byId.get(at)?.callFrame;
      if (frame === undefined) break;
      const name = frameName(frame);
      if (seen.has(name)) continue;
      seen.add(name);
      times.set(name, (times.get(name) ?? 0) + ms);
    }
  }
  return times;
}

async function profileOne(target: { webSocketDebuggerUrl: string }, request: RequestSpec): Promise<void> {
  const session = await connectInspector(target.webSocketDebuggerUrl);
  await session.send("Profiler.enable");
  await session.send("Profiler.setSamplingInterval", { interval: 100 });
  await session.send("Profiler.start");
  const load = await client.round(request, { concurrency: 8, durationMs: seconds * 1000 });
  const { profile } = (await session.send("Profiler.stop")) as { profile: Profile };
  session.close();
  const out = join(root, ".bench", `${label}.cpuprofile`);
  writeFileSync(out, JSON.stringify(profile));
  const { functions, files, totalMs } = summarise(profile);
  const perRequest = (ms: number) => `${((ms * 1000) / load.requests).toFixed(1).padStart(7)} us/req`;
  console.log(`${label}: ${load.requests} requests in ${seconds} s; isolate samples ${totalMs.toFixed(0)} ms (${perRequest(totalMs)}, idle included)`);
  console.log("\nfiles");
  for (const [file, ms] of files.slice(0, 12)) console.log(`${perRequest(ms)}  ${file}`);
  console.log(inclusive ? "\nfunctions (inclusive: with their callees)" : "\nfunctions (self)");
  for (const [name, ms] of functions.slice(0, Number(arg("top", "40")))) console.log(`${perRequest(ms)}  ${name}`);
  console.log(`\nWrote ${out} (open it in Chrome DevTools' Performance panel)`);
}

interface HeapNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: HeapNode[];
}

/**
 * `--heap`: bytes allocated per request by function, from V8's sampling heap profiler with the
 * objects young and old collections freed counted too, so it shows what feeds the garbage
 * collector (a live-objects-only profile would not).
 */
async function heapProfile(target: { webSocketDebuggerUrl: string }, request: RequestSpec): Promise<void> {
  const session = await connectInspector(target.webSocketDebuggerUrl);
  await session.send("HeapProfiler.enable");
  await session.send("HeapProfiler.startSampling", { samplingInterval: 256, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
  const load = await client.round(request, { concurrency: 8, durationMs: seconds * 1000 });
  const { profile } = (await session.send("HeapProfiler.stopSampling")) as { profile: { head: HeapNode } };
  session.close();
  const bytes = new Map<string, number>();
  let total = 0;
  const visit = (node: HeapNode) => {
    const { functionName, url, lineNumber } = node.callFrame;
    const name = `${functionName || "(anonymous)"}  ${url === "" ? "(native)" : url.replace(/^.*\//, "")}:${lineNumber + 1}`;
    bytes.set(name, (bytes.get(name) ?? 0) + node.selfSize);
    total += node.selfSize;
    for (const child of node.children) visit(child);
  };
  visit(profile.head);
  const perRequest = (b: number) => `${(b / load.requests).toFixed(0).padStart(7)} B/req`;
  console.log(`${label}: ${load.requests} requests in ${seconds} s; ${perRequest(total)} allocated (sampled)`);
  for (const [name, b] of [...bytes].sort((x, y) => y[1] - x[1]).slice(0, Number(arg("top", "40")))) console.log(`${perRequest(b)}  ${name}`);
}

const scriptPath = await buildBenchWorker(root, join(root, ".bench"), { minify: false });
const worker = await serveWorker(scriptPath, join(root, "wrangler.toml"), { inspectorPort });
const client = new LoadClient(worker.url, 8, { authorization: `Bearer ${worker.adminToken}` });

/** An agent key made as `npm run bench` makes its own (scripts/bench.ts). */
async function agentKey(): Promise<string> {
  const body = JSON.stringify({ name: "profile-agent", role: "agent", toolsets: null, rate_limit_per_minute: 1_000_000 });
  const answer = await client.send({ method: "POST", path: KEYS_PATH, body });
  const key = (JSON.parse(answer.body) as { key?: unknown }).key;
  if (typeof key !== "string") throw new Error(`profile: POST ${KEYS_PATH} answered ${answer.status}: ${answer.body.slice(0, 300)}`);
  return key;
}
try {
  const targets = (await (await fetch(`http://127.0.0.1:${inspectorPort}/json/list`)).json()) as { title?: string; webSocketDebuggerUrl: string }[];
  const target = targets.find((t) => t.webSocketDebuggerUrl.includes("toolgate-bench")) ?? targets[0];
  if (target === undefined) throw new Error("profile: workerd's inspector lists no isolate");
  const request: RequestSpec = mcp
    ? {
        method: "POST" as const,
        path: MCP_PATH,
        body: modern ? MODERN_ECHO_CALL : MCP_ECHO_CALL,
        // --pipeline picks the app /mcp runs through too (full-no-audit: mcp-peers' target arm);
        // the agent key is the one the scenario calls with, since the admin token is another principal.
        headers: { ...(modern ? MODERN_HEADERS : MCP_HEADERS), authorization: `Bearer ${await agentKey()}`, [PIPELINE_HEADER]: pipeline },
      }
    : process.argv.includes("--chat")
      ? { method: "POST" as const, path: "/v1/chat/completions", body: chatBody(Number(arg("turns", "1"))), headers: { "content-type": "application/json" } }
      : { method: "POST" as const, path: TOOL_CALLS_PATH, body: ECHO_CALL_BODY, headers: { [PIPELINE_HEADER]: pipeline } };
  await client.round(request, { concurrency: 8, durationMs: 2_000 });
  if (process.argv.includes("--heap")) {
    await heapProfile(target, request);
  } else if (process.argv.includes("--all")) {
    // Every isolate workerd serves (Miniflare's queue broker, D1 and KV simulators included),
    // profiled over the same load: which isolates a request's cost reaches, and in what. The
    // isolates share workerd's threads and each sampler counts its own isolate's waits as time,
    // so compare the figures within one isolate, not across isolates or with workerd's CPU.
    const sessions = await Promise.all(
      targets.map(async (t) => ({ title: t.title ?? t.webSocketDebuggerUrl, session: await connectInspector(t.webSocketDebuggerUrl) })),
    );
    for (const { session } of sessions) {
      await session.send("Profiler.enable");
      await session.send("Profiler.setSamplingInterval", { interval: 100 });
      await session.send("Profiler.start");
    }
    const load = await client.round(request, { concurrency: 8, durationMs: seconds * 1000 });
    const perRequest = (ms: number) => `${((ms * 1000) / load.requests).toFixed(1).padStart(7)} us/req`;
    console.log(`${label}: ${load.requests} requests in ${seconds} s, every isolate`);
    for (const { title, session } of sessions) {
      const { profile } = (await session.send("Profiler.stop")) as { profile: Profile };
      session.close();
      const { functions, totalMs } = summarise(profile);
      const busy = functions.filter(([name]) => !name.startsWith("(idle)") && !name.startsWith("(program)") && !name.startsWith("(garbage collector)"));
      const busyMs = busy.reduce((sum, [, ms]) => sum + ms, 0);
      console.log(`\n${title}: ${perRequest(busyMs)} in JS and native calls (${perRequest(totalMs)} with idle, program and GC)`);
      for (const [name, ms] of functions.slice(0, 12)) console.log(`${perRequest(ms)}  ${name}`);
    }
  } else {
    await profileOne(target, request);
  }
} finally {
  await client.close();
  await worker.dispose();
}
