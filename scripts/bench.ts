/**
 * `npm run bench`: one run, on this machine, of every scenario in scripts/bench/scenarios/,
 * each compared against a reference measured in the same run. Prints a table per scenario,
 * then one table of every target (the median of paired runs, its spread, the target, met or
 * not: scripts/bench/paired-runs.ts), and writes the same figures to .bench/results.json.
 *
 * The bench Worker (scripts/bench/worker.ts: the app, 500 synthetic tools, bare routes) is
 * bundled with esbuild and served by workerd through Miniflare on 127.0.0.1 only (see
 * scripts/bench/serve.ts for why not `wrangler dev`). When a scenario compares MCP servers, the
 * peers in bench/ are installed (`npm ci --prefix bench`, first run only, before the watchdog
 * starts), bundled the same way and served in the same workerd, each on its own direct socket.
 * workerd's console output goes to .bench/workerd-stdout.log (scripts/bench/workerd-stdout.ts
 * says why); its warnings and errors are printed when the run ends.
 * All load is bounded in time and count. However the run ends (a scenario throws, the watchdog
 * fires, Ctrl-C), what finished is printed and written, then Miniflare is disposed; the exit
 * code is 1 when a scenario threw or the run was stopped, and 0 when targets were merely missed.
 *
 * @example
 * ```sh
 * npm run bench                 # full run, about 6.5 minutes on the quiet 2-core machine
 * npm run bench -- --quick      # quarter-second rounds, to check the bench itself works (CI)
 * npm run bench -- --only=tools-listing,bundle-size   # some scenarios, by id
 * npm run bench -- --rounds=7 --round-ms=3000          # longer rounds, on a quiet machine
 * ```
 */
import { cpus } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { buildBenchWorker } from "./bench/build-worker.ts";
import { cleanUp } from "./bench/clean-up.ts";
import { LoadClient } from "./bench/load.ts";
import { type BuiltPeer, buildPeers, ensurePeersInstalled } from "./bench/peers.ts";
import { type BenchResults, formatRun, writeResults } from "./bench/report.ts";
import { KEYS_PATH } from "./bench/requests.ts";
import { describeError, runScenarios, type ScenariosRun, untilAborted } from "./bench/run-scenarios.ts";
import type { BenchContext, BenchSettings } from "./bench/scenario.ts";
import { SCENARIOS } from "./bench/scenarios/index.ts";
import { type ServedWorker, serveWorker } from "./bench/serve.ts";
import { findChildProcess } from "./bench/server-cpu.ts";
import { warmUpCallPath } from "./bench/warm-up.ts";
import { WORKERD_VERSION } from "./bench/workerd.ts";
import { numberFlag } from "./number-flag.ts";

/**
 * Five rounds per arm, for medians that shrug off two bad rounds, of 1 s each (3 s before issue
 * 16: the full run took over 5 minutes): thousands of requests a round still. On this shared
 * 2-core machine the spread between rounds comes from other processes, not from round length
 * (measured under load: per-round ratios spread as widely with 3 s rounds as with 1 s ones), and
 * shorter alternating rounds put the paired arms closer in time. The 0.3 s warm-up is over a
 * thousand requests per arm after its priming one; the tool-call path gets a longer one before
 * the first scenario (bench/warm-up.ts), and a slow first round is outvoted anyway.
 */
const FULL: BenchSettings = { rounds: 5, roundMs: 1_000, warmupMs: 300, concurrency: 8 };
/**
 * Proves every scenario runs and answers; its figures are not for comparing (one round where a
 * target wants five, and it fails only on a throw or a guard). Quarter-second rounds, and one of
 * each: CI runs it after the suite, and two rounds took 103 s of issue 28's ten minutes
 * (2026-12-05) where one took 70-80 s (about 90 s since every round is settled and collected) and
 * proves the same.
 */
const QUICK: BenchSettings = { rounds: 1, roundMs: 250, warmupMs: 100, concurrency: 8 };
/**
 * A hung run (a wedged workerd, say) is stopped rather than left holding a core. The full run
 * took 474-478 s on a quiet 2-core machine (2026-12-05, 27 scenarios, every round settled and
 * collected: rounds.ts; 381-406 s before rounds were collected, and 564 s on a loaded machine, so
 * a loaded run now may pass this limit: `--watchdog=900` lifts it). The limit is for a quiet
 * machine, where the bench's figures mean something, and stops a hang there. `--watchdog=<seconds>` sets another limit (to
 * try the stopped path).
 */
const WATCHDOG_MS = 1000 * (numberFlag("watchdog") ?? 10 * 60);

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const benchDir = join(root, ".bench");
const quick = process.argv.includes("--quick");
/** `--rounds=` and `--round-ms=` lengthen (or shorten) the rounds, for a quieter machine. */
const rounds = numberFlag("rounds");
const roundMs = numberFlag("round-ms");
const settings: BenchSettings = { ...(quick ? QUICK : FULL), ...(rounds === undefined ? {} : { rounds }), ...(roundMs === undefined ? {} : { roundMs }) };
const only = process.argv
  .find((arg) => arg.startsWith("--only="))
  ?.slice("--only=".length)
  .split(",");
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

/** Serves the bench Worker (and the peers) and makes the context every scenario runs with. */
async function setUp(scriptPath: string, built: readonly BuiltPeer[], served: Served): Promise<BenchContext> {
  const worker = await serveWorker(scriptPath, join(root, "wrangler.toml"), { peers: built, exposeGc: true });
  served.worker = worker;
  const client = new LoadClient(worker.url, settings.concurrency, { authorization: `Bearer ${worker.adminToken}` });
  served.clients.push(client);
  const agentKey = await createAgentKey(client);
  const peers = built.map((peer) => {
    const url = worker.peerUrls[peer.name];
    if (url === undefined) throw new Error(`bench: peer ${peer.name} has no socket`);
    const peerClient = new LoadClient(url, settings.concurrency);
    served.clients.push(peerClient);
    return { ...peer, client: peerClient };
  });
  return { root, settings, client, origin: worker.url.origin, agentKey, adminToken: worker.adminToken, quick, serverPid: findChildProcess("workerd"), peers };
}

/** What has to be shut down, filled in as it starts. */
interface Served {
  worker?: ServedWorker;
  clients: LoadClient[];
}

/** Runs the bench; resolves with the exit code, having printed and written whatever finished. */
async function main(): Promise<number> {
  if (scenarios.length === 0) throw new Error(`bench: --only matched no scenario; ids: ${SCENARIOS.map((s) => s.id).join(", ")}`);
  const startedAt = new Date();
  const progress = (message: string) => process.stderr.write(`bench: ${((Date.now() - startedAt.getTime()) / 1000).toFixed(0).padStart(3)} s  ${message}\n`);
  // Installing the peers is a one-off download whose time depends on the network, not on the
  // bench, so it happens before the watchdog starts.
  if (scenarios.some((s) => s.needsPeers === true)) ensurePeersInstalled(root, progress);

  const stop = new AbortController();
  const watchdog = setTimeout(() => stop.abort(new Error(`watchdog: still running after ${WATCHDOG_MS / 1000} s`)), WATCHDOG_MS);
  watchdog.unref();
  let interrupted = false;
  process.once("SIGINT", () => {
    interrupted = true;
    stop.abort(new Error("interrupted (SIGINT)"));
  });

  const served: Served = { clients: [] };
  let run: ScenariosRun = { outcomes: [], failures: [] };
  try {
    progress("bundling scripts/bench/worker.ts");
    const scriptPath = await untilAborted(buildBenchWorker(root, benchDir), stop.signal);
    let built: BuiltPeer[] = [];
    if (scenarios.some((s) => s.needsPeers === true)) {
      progress("bundling the MCP peers (bench/peers/)");
      built = await untilAborted(buildPeers(root, benchDir), stop.signal);
    }
    progress("starting workerd (Miniflare, direct sockets)");
    const ctx = await untilAborted(setUp(scriptPath, built, served), stop.signal);
    progress("warming up the tool-call path");
    await untilAborted(warmUpCallPath(ctx.client, settings), stop.signal);
    run = await runScenarios(scenarios, ctx, stop.signal, progress);
  } catch (error) {
    // Before the first scenario: nothing was measured, but the report still says why.
    if (stop.signal.aborted) run.stopped = { reason: describeError(stop.signal.reason), scenario: "setup" };
    else
      run.failures.push({
        id: "setup",
        title: "bundling, starting workerd, creating the agent key",
        seconds: 0,
        error: error instanceof Error ? (error.stack ?? error.message) : String(error),
      });
  }
  clearTimeout(watchdog);

  const seconds = (Date.now() - startedAt.getTime()) / 1000;
  const environment = {
    node: process.version,
    workerd: WORKERD_VERSION,
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? "unknown",
    served: "Miniflare, unsafeDirectSockets (no entry Worker), local KV/D1/Durable Object/queues in the same workerd",
  };
  const complete = run.stopped === undefined && run.failures.length === 0;
  const results: BenchResults = {
    startedAt: startedAt.toISOString(),
    seconds,
    complete,
    ...(run.stopped === undefined ? {} : { stopped: run.stopped }),
    failures: run.failures,
    environment,
    settings,
    scenarios: run.outcomes,
  };
  const header = `toolgate bench  ${startedAt.toISOString()}  ${seconds.toFixed(0)} s  node ${environment.node}  workerd ${environment.workerd}  ${environment.cpus} CPUs${quick ? "  QUICK" : ""}${complete ? "" : "  INCOMPLETE"}`;
  console.log(`\n${formatRun(results, header)}`);
  const resultsPath = join(benchDir, "results.json");
  writeResults(resultsPath, results);
  console.log(`\nWrote ${resultsPath}`);

  // After the report, so nothing here can hide it; a scenario cut short may still be sending.
  const problems = await cleanUp([
    ...served.clients.map((client, i) => ({ label: `closing load client ${i + 1}`, run: () => client.close() })),
    { label: "disposing Miniflare (workerd)", run: () => served.worker?.dispose() },
  ]);
  for (const problem of problems) progress(`cleanup: ${problem}`);
  progress("done");
  // A missed target is not a failure of the bench (see .ci/run); a throw, a stop or a missed
  // guard (a margin no noise reaches, such as start-up at twice the peer's) is.
  if (interrupted) return 130;
  const missedGuards = run.outcomes.flatMap((o) => o.checks).filter((c) => c.guard === true && !c.pass);
  for (const guard of missedGuards) progress(`guard missed: ${guard.label}: ${guard.actual} (guard ${guard.target})`);
  return complete && missedGuards.length === 0 ? 0 : 1;
}

process.exit(
  await main().catch((error: unknown) => {
    console.error(error);
    return 1;
  }),
);
