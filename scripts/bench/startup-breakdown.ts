/**
 * Where toolgate's start-up goes, by source module: bundles src/index.ts unminified (wrangler's
 * alias and conditions, scripts/bench/build-worker.ts), profiles its start-up as the `startup`
 * scenario does (startup-profile.ts) at a fine sampling interval, several times, and prints the
 * self time per bundled module and per function. esbuild marks each module's code in an
 * unminified bundle with a `// path` comment line, so a sample's line says which module ran:
 * module evaluation is top-level code, which a profile otherwise shows as one anonymous frame.
 * With `--first`, the same for the cold isolate's first request instead: an MCP tools/call of
 * echo, as the scenario sends. The last run's profile is written for DevTools.
 *
 * @example
 * ```sh
 * node scripts/bench/startup-breakdown.ts            # 3 runs
 * node scripts/bench/startup-breakdown.ts --runs=5 --top=60
 * node scripts/bench/startup-breakdown.ts --first     # the first tools/call after start-up
 * ```
 */
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { numberFlag } from "../number-flag.ts";
import { bundleWorker, workerAlias } from "./build-worker.ts";
import { echoed, MCP_ECHO_CALL, MCP_HEADERS, MCP_PATH } from "./scenarios/mcp-peers.ts";
import { migrationStatements, readConfigOptions, workerModules } from "./serve.ts";
import { profileStartup, STARTUP_HOST } from "./startup-profile.ts";
import { median } from "./stats.ts";

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  positionTicks?: { line: number; ticks: number }[];
  children?: number[];
}

const runs = numberFlag("runs") ?? 3;
const top = numberFlag("top") ?? 40;
const first = process.argv.includes("--first");
const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const configPath = join(root, "wrangler.toml");
const outDir = join(root, ".bench/startup-breakdown");
const ADMIN_TOKEN = "startup-breakdown-token";

const script = await bundleWorker(join(root, "src/index.ts"), join(outDir, "index.js"), { minify: false, alias: workerAlias(configPath) });
// Line (1-based) -> the module whose code it is.
const lines = readFileSync(script, "utf8").split("\n");
const moduleOfLine: string[] = [];
let current = "(bundle prelude)";
for (const [i, line] of lines.entries()) {
  // node_modules may sit behind a symlink (a worktree's), which esbuild names by its real path.
  const marker = /^\/\/ (?:\.\.\/[^/]+\/)?(\S+\.(?:[cm]?js|tsx?|json))$/.exec(line);
  if (marker?.[1] !== undefined) current = marker[1].replace(/^node_modules\/(@[^/]+\/[^/]+|[^/]+)\/.*$/, "node_modules/$1 ($&)");
  moduleOfLine[i + 1] = current;
}
const short = (module: string): string => module.replace(/ \(.*\)$/, "");

const byModule = new Map<string, number>();
const byFunction = new Map<string, number>();
const byPackage = new Map<string, number>();
const byOwnCaller = new Map<string, number>();
const OWN = /^(src|tools|webhooks|plugins|apis)\//;
const add = (map: Map<string, number>, key: string, ms: number) => map.set(key, (map.get(key) ?? 0) + ms);
let active = 0;
const workerdCpu: number[] = [];
for (let run = 0; run < runs; run++) {
  const result = await profileStartup(
    {
      modules: workerModules(script),
      config: readConfigOptions(configPath),
      vars: { ADMIN_TOKEN },
      samplingIntervalUs: 50,
      async setUp(mf) {
        const db = await mf.getD1Database("DB", STARTUP_HOST);
        await db.batch(migrationStatements(configPath).map((statement) => db.prepare(statement)));
      },
    },
    {
      path: MCP_PATH,
      body: MCP_ECHO_CALL,
      headers: { ...MCP_HEADERS, "content-type": "application/json", authorization: `Bearer ${ADMIN_TOKEN}` },
      check(status, body) {
        if (status !== 200 || !(echoed(body) ?? "").includes("hi"))
          throw new Error(`startup-breakdown: the first tools/call failed: ${status} ${body.slice(0, 300)}`);
      },
    },
  );
  active += first ? result.firstCall.activeMs : result.startup.activeMs;
  workerdCpu.push(first ? result.workerdCpuMs.firstCall : result.workerdCpuMs.startup);
  const profile = first ? result.firstCallProfile : result.profile;
  const nodes = new Map((profile.nodes as Node[]).map((n) => [n.id, n]));
  const samples = profile.samples ?? [];
  const sampleMs = (profile.endTime - profile.startTime) / 1000 / Math.max(1, samples.length);
  const parent = new Map<number, number>();
  for (const n of nodes.values()) for (const child of n.children ?? []) parent.set(child, n.id);
  const moduleOfNode = (n: Node): string | undefined => (n.callFrame.url.endsWith("index.js") ? moduleOfLine[n.callFrame.lineNumber + 1] : undefined);
  // The innermost frame of our own code on the stack: which of our modules caused a sample.
  const ownCaller = (id: number): string => {
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const n = nodes.get(at);
      const module = n === undefined ? undefined : moduleOfNode(n);
      if (n !== undefined && module !== undefined && OWN.test(module))
        return `${n.callFrame.functionName || "(anonymous)"} ${module}:${n.callFrame.lineNumber + 1}`;
    }
    const self = nodes.get(id);
    return `(no own frame) ${self?.callFrame.functionName || "(anonymous)"} ${self === undefined ? "" : (moduleOfNode(self) ?? self.callFrame.url)}`;
  };
  const selfSamples = new Map<number, number>();
  for (const id of samples) selfSamples.set(id, (selfSamples.get(id) ?? 0) + 1);
  for (const [id, count] of selfSamples) {
    const node = nodes.get(id);
    if (node === undefined) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === "(idle)") continue;
    const ms = count * sampleMs;
    const inBundle = url.endsWith("index.js");
    // Line ticks say where inside a frame the samples fell (module code is one frame per chunk).
    const ticks = node.positionTicks ?? [];
    const tickSum = ticks.reduce((s, t) => s + t.ticks, 0);
    if (inBundle && tickSum > 0) {
      for (const t of ticks) {
        const module = moduleOfLine[t.line] ?? "?";
        add(byModule, module, (ms * t.ticks) / tickSum);
        add(byPackage, short(module), (ms * t.ticks) / tickSum);
      }
    } else {
      const module = inBundle ? (moduleOfLine[lineNumber + 1] ?? "?") : functionName || url || "?";
      add(byModule, module, ms);
      add(byPackage, short(module), ms);
    }
    add(byOwnCaller, ownCaller(id), ms);
    add(byFunction, `${functionName || "(anonymous)"} ${inBundle ? `${short(moduleOfLine[lineNumber + 1] ?? "?")}:${lineNumber + 1}` : url}`, ms);
  }
  if (run === runs - 1) writeFileSync(join(outDir, first ? "first-call.cpuprofile" : "startup.cpuprofile"), JSON.stringify(profile));
}
const print = (title: string, map: Map<string, number>) => {
  console.log(`\n${title} (ms per start-up, mean of ${runs})`);
  for (const [key, ms] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`${(ms / runs).toFixed(2).padStart(8)}  ${key}`);
};
const sorted = workerdCpu.toSorted((a, b) => a - b);
console.log(
  `Active ${(active / runs).toFixed(1)} ms per start-up (mean of ${runs}); workerd CPU median ${median(sorted).toFixed(1)} ms (${sorted.map((ms) => ms.toFixed(1)).join(", ")})`,
);
print("by package / source file", byPackage);
print("by module", byModule);
print("by function", byFunction);
print("by innermost own frame on the stack", byOwnCaller);
