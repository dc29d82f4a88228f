/**
 * `npm run bench`: one run, on this machine, of every scenario in scripts/bench/scenarios/,
 * each compared against a reference measured in the same run. Prints a table per scenario
 * and the targets, and writes the same figures to .bench/results.json.
 *
 * The bench Worker (scripts/bench/worker.ts: the app, 500 synthetic tools, bare routes) is
 * bundled with esbuild and served by workerd through Miniflare on 127.0.0.1 only (see
 * scripts/bench/serve.ts for why not `wrangler dev`). When a scenario compares MCP servers, the
 * peers in bench/ are installed (`npm ci --prefix bench`, first run only), bundled the same way
 * and served in the same workerd, each on its own direct socket. All load is bounded in time and count,
 * and Miniflare is disposed however the run ends.
 *
 * @example
 * ```sh
 * npm run bench                 # full run, about a minute and a half
 * npm run bench -- --quick      # short rounds, to check the bench itself works
 * npm run bench -- --only=tools-listing,bundle-size   # some scenarios, by id
 * ```
 */
import { cpus } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { buildBenchWorker } from "./bench/build-worker.ts";
import { LoadClient } from "./bench/load.ts";
import { buildPeers, ensurePeersInstalled, type BuiltPeer } from "./bench/peers.ts";
import { formatChecks, formatScenario, writeResults, type ScenarioOutcome } from "./bench/report.ts";
import type { BenchSettings } from "./bench/scenario.ts";
import { KEYS_PATH } from "./bench/requests.ts";
import { SCENARIOS } from "./bench/scenarios/index.ts";
import { serveWorker, type ServedWorker } from "./bench/serve.ts";
import { findChildProcess } from "./bench/server-cpu.ts";
import { WORKERD_VERSION } from "./bench/workerd.ts";

const FULL: BenchSettings = { rounds: 5, roundMs: 3_000, warmupMs: 1_000, concurrency: 8 };
const QUICK: BenchSettings = { rounds: 2, roundMs: 1_000, warmupMs: 300, concurrency: 8 };
/** A hung run (a wedged workerd, say) is stopped rather than left holding a core. */
const WATCHDOG_MS = 5 * 60_000;

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const benchDir = join(root, ".bench");
const settings = process.argv.includes("--quick") ? QUICK : FULL;
const only = process.argv.find((arg) => arg.startsWith("--only="))?.slice("--only=".length).split(",");
const scenarios = only === undefined ? SCENARIOS : SCENARIOS.filter((s) => only.includes(s.id));

/**
 * Creates the agent key the full app's figures use, through the real admin route: every
 * toolset, the default policy, and a per-minute limit the bench never reaches.
 */
async function createAgentKey(client: LoadClient): Promise<string> {
  const body = JSON.stringify({ name: "bench-agent", role: "agent", toolsets: null, rate_limit_per_minute: 1_000_000 });
  const { status, body: answer } = await client.send({ method: "POST", path: KEYS_PATH, body });
  const key = status === 201 || status === 200 ? (JSON.parse(answer) as { key?: unknown }).key : undefined;
  if (typeof key !== "string") throw new Error(`bench: POST ${KEYS_PATH} answered ${status}: ${answer.slice(0, 500)}`);
  return key;
}

async function main(): Promise<void> {
  if (scenarios.length === 0) throw new Error(`bench: --only matched no scenario; ids: ${SCENARIOS.map((s) => s.id).join(", ")}`);
  const startedAt = new Date();
  const progress = (message: string) => process.stderr.write(`bench: ${message}\n`);
  progress("bundling scripts/bench/worker.ts");
  const scriptPath = await buildBenchWorker(root, benchDir);
  let built: BuiltPeer[] = [];
  if (scenarios.some((s) => s.needsPeers === true)) {
    ensurePeersInstalled(root, progress);
    progress("bundling the MCP peers (bench/peers/)");
    built = await buildPeers(root, benchDir);
  }
  progress("starting workerd (Miniflare, direct sockets)");
  let worker: ServedWorker | undefined;
  let client: LoadClient | undefined;
  let peerClients: LoadClient[] = [];
  const cleanUp = async () => {
    await client?.close();
    await Promise.all(peerClients.map((c) => c.close()));
    await worker?.dispose();
    client = undefined;
    peerClients = [];
    worker = undefined;
  };
  const abort = (why: string, code: number) => {
    progress(why);
    void cleanUp().finally(() => process.exit(code));
  };
  process.once("SIGINT", () => abort("interrupted; shutting workerd down", 130));
  setTimeout(() => abort(`still running after ${WATCHDOG_MS / 60_000} min; giving up`, 1), WATCHDOG_MS).unref();

  const outcomes: ScenarioOutcome[] = [];
  try {
    worker = await serveWorker(scriptPath, join(root, "wrangler.toml"), { peers: built });
    client = new LoadClient(worker.url, settings.concurrency, { authorization: `Bearer ${worker.adminToken}` });
    const agentKey = await createAgentKey(client);
    const serverPid = findChildProcess("workerd");
    const urls = worker.peerUrls;
    const peers = built.map((peer) => {
      const url = urls[peer.name];
      if (url === undefined) throw new Error(`bench: peer ${peer.name} has no socket`);
      return { ...peer, client: new LoadClient(url, settings.concurrency) };
    });
    peerClients = peers.map((p) => p.client);
    for (const scenario of scenarios) {
      progress(`${scenario.id}…`);
      const t0 = performance.now();
      const report = await scenario.run({ root, settings, client, agentKey, serverPid, peers });
      outcomes.push({ id: scenario.id, title: scenario.title, seconds: (performance.now() - t0) / 1000, ...report });
    }
  } finally {
    await cleanUp();
  }

  const seconds = (Date.now() - startedAt.getTime()) / 1000;
  const environment = {
    node: process.version,
    workerd: WORKERD_VERSION,
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? "unknown",
    served: "Miniflare, unsafeDirectSockets (no entry Worker), local KV/D1/Durable Object/queues in the same workerd",
  };
  console.log(`\ntoolgate bench  ${startedAt.toISOString()}  ${seconds.toFixed(0)} s  node ${environment.node}  workerd ${environment.workerd}  ${environment.cpus} CPUs${settings === QUICK ? "  QUICK" : ""}\n`);
  outcomes.forEach((outcome, i) => console.log(`${formatScenario(i + 1, outcome)}\n`));
  console.log(formatChecks(outcomes));
  const resultsPath = join(benchDir, "results.json");
  writeResults(resultsPath, { startedAt: startedAt.toISOString(), seconds, environment, settings, scenarios: outcomes });
  console.log(`\nWrote ${resultsPath}`);
}

await main();
