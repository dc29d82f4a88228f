/**
 * Serves the bench Worker in workerd through Miniflare's API, with the real wrangler.toml's
 * compatibility settings, vars and bindings: local KV, D1 (migrations applied at start) and R2,
 * the RateLimiter Durable Object and the audit queues with their consumer, all as Miniflare
 * runs them, in the same workerd process as the Worker.
 *
 * Why a direct socket: Miniflare routes every request through its own entry Worker (header
 * rewriting, `cf`, pretty error pages) before the user Worker, and `mf.ready` is the entry's
 * URL. `unsafeDirectSockets` makes workerd also listen on a socket bound straight to the user
 * Worker, as a raw `workerd serve` config would, while Miniflare still runs the KV and D1
 * simulators that raw workerd lacks. Measured with scripts/bench/compare-serving.ts (8 in
 * flight, 2-core machine): the bare route did ~3,300 req/s on the direct socket, ~3,000 on raw
 * workerd (noise) and ~1,000 through the entry Worker, which would hide most of the app's cost.
 * `wrangler dev` is worse still: its proxy costs ~3 ms of CPU per request here.
 */
import { randomBytes } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { convertV4MiniflareOptions, Log, LogLevel, Miniflare, type V4WorkerOptions } from "miniflare";
import { unstable_getMiniflareWorkerOptions } from "wrangler";
import { EXPOSE_GC_FLAG } from "./collect-garbage-route.ts";
import { AUDIT_SINK_BINDING } from "./requests.ts";
import { type WorkerdStdout, workerdStdoutToFile } from "./workerd-stdout.ts";

const WORKER_NAME = "toolgate-bench";

/** What we take from wrangler.toml: the runtime settings and the bindings, not its `main`. */
export type ConfigOptions = Pick<
  V4WorkerOptions,
  | "compatibilityDate"
  | "compatibilityFlags"
  | "bindings"
  | "kvNamespaces"
  | "d1Databases"
  | "r2Buckets"
  | "durableObjects"
  | "queueProducers"
  | "queueConsumers"
>;

/**
 * Limits the bench's load must stay under (both at config-schema.ts's ceiling), so rate-limited calls
 * never mix into the figures: the limiter still counts every call, it just never refuses one.
 * OUTBOUND_ALLOW opens loopback to the bench Worker alone, for pages the bench serves itself
 * (scenarios/web-extract-page.ts); wrangler.toml, and so production, leaves it closed.
 */
// The agent-turn scenario's model is answered inside the Worker (scripts/bench/scripted-model.ts).
const BENCH_VARS = {
  RATE_LIMIT_PER_MINUTE: "1000000",
  RATE_LIMIT_PER_TOOL_PER_MINUTE: "1000000",
  OUTBOUND_ALLOW: "127.0.0.1",
  MODEL_BASE_URL: "http://model.bench/v1",
  MODEL_API_KEY: "bench",
  MODEL_NAME: "bench-scripted",
  // vision_analyze's worst inputs reach the model (the in-isolate stand-in above) only when it is available.
  MODEL_VISION: "true",
  // The worst-inputs scenario sends inputs at the tools' own caps (a 10 MiB file, a 1 MiB
  // old_string), which the door's default 1 MiB body limit would refuse before any tool ran.
  MAX_BODY_BYTES: String(32 * 1024 * 1024),
  MAX_TOOL_CALLS: "1000",
  // The own-token scenario seals and opens a per-user connection's grant under it.
  MCP_TOKEN_KEY: "bench-mcp-token-key-0123456789abcdef0123456789",
};

/**
 * The queue behind AUDIT_SINK_BINDING has no consumer: Miniflare's broker answers a send to it
 * and drops the batch unread, so the full app's serving path pays its own sending (group commit,
 * sendBatch) and none of the consumer's work, which in production runs as its own invocation.
 */
const AUDIT_SINK_QUEUE = "toolgate-bench-audit-sink";

/** Another Worker to serve in the same workerd: one bundled module, no bindings. */
export interface PeerWorker {
  name: string;
  scriptPath: string;
}

export interface ServeOptions {
  inspectorPort?: number;
  /** Served beside the bench Worker, each on its own direct socket (the MCP peers). */
  peers?: readonly PeerWorker[];
  /** Variables beyond the bench's own, for one use of the Worker (the hostile suite's). */
  vars?: Readonly<Record<string, string>>;
  /**
   * Start workerd with V8's --expose-gc, for the collection after every measured round
   * (collect-garbage-route.ts): `npm run bench` only. Other users of the bench Worker (the hostile
   * suite, compare-serving, the profiler) run it as production runs, without the flag.
   */
  exposeGc?: boolean;
}

export interface ServedWorker {
  /** The user Worker's own socket (no Miniflare entry Worker in front). */
  url: URL;
  /** Each peer's own socket, by name. */
  peerUrls: Record<string, URL>;
  /** The entry Worker's URL, for comparing what the extra hop costs. */
  entryUrl: URL;
  /** This run's ADMIN_TOKEN, made up at start: /v1/* wants `Authorization: Bearer <it>`. */
  adminToken: string;
  dispose(): Promise<void>;
}

/**
 * The runtime settings and bindings of a wrangler config, read by wrangler itself so they
 * cannot drift from wrangler.toml.
 */
export function readConfigOptions(configPath: string): ConfigOptions {
  // The declared type loses these fields' types (an Omit over a union), hence the cast.
  return unstable_getMiniflareWorkerOptions(configPath).workerOptions as ConfigOptions;
}

/**
 * The statements of every D1 migration next to `configPath`, in file order. Comments are
 * dropped first, since they may contain semicolons.
 */
export function migrationStatements(configPath: string): string[] {
  const dir = join(dirname(configPath), "migrations");
  return readdirSync(dir)
    .filter((name) => name.endsWith(".sql"))
    .sort()
    .flatMap((name) =>
      readFileSync(join(dir, name), "utf8")
        .replace(/--[^\n]*/g, "")
        .split(";"),
    )
    .map((statement) => statement.trim())
    .filter((statement) => statement !== "");
}

/**
 * The Worker's modules: its bundle and the .wasm files the bundler copied beside it (QuickJS),
 * each a compiled WebAssembly module, as wrangler uploads them.
 */
export function workerModules(scriptPath: string): { type: "ESModule" | "CompiledWasm"; path: string }[] {
  const dir = dirname(scriptPath);
  const wasm = readdirSync(dir)
    .filter((name) => name.endsWith(".wasm"))
    .sort();
  return [{ type: "ESModule", path: scriptPath }, ...wasm.map((name) => ({ type: "CompiledWasm" as const, path: join(dir, name) }))];
}

/**
 * Prints a log entry only if it is a warning or an error: Miniflare's handler of what workerd
 * writes to stderr, and the reader of the Worker's own lines, which go to a file
 * (workerd-stdout.ts says why). The Worker writes one JSON line per request and per call
 * (src/tracing/request-log.ts); printed, they were tens of MB per run (34 MB in one CI log).
 */
export function printWarningsOnly({ level, message }: { level: string; message: string }): void {
  if (level === "warn" || level === "error") process.stderr.write(`${message}\n`);
}

/**
 * What workerd says once per isolate under V8's --expose-gc (withGcExposed): its bootstrap code cache
 * was made without the flag, so that code is compiled from source. Expected of the bench's own
 * workerd, which the start-up scenario does not measure; anywhere else it is a finding.
 */
const EXPOSE_GC_NOTICE = "bootstrap compile cache failed its compatibility check";

/** printWarningsOnly for the bench's own workerd, less EXPOSE_GC_NOTICE. */
function printBenchWarnings(entry: { level: string; message: string }): void {
  if (!entry.message.includes(EXPOSE_GC_NOTICE)) printWarningsOnly(entry);
}

/**
 * Starts workerd with `scriptPath` as the Worker, using the bindings of `configPath` and a
 * random ADMIN_TOKEN that authenticates the bench's requests, and applies the D1 migrations.
 */
export async function serveWorker(
  scriptPath: string,
  configPath: string,
  { inspectorPort, peers = [], vars = {}, exposeGc = false }: ServeOptions = {},
): Promise<ServedWorker> {
  const fromConfig = readConfigOptions(configPath);
  const adminToken = randomBytes(32).toString("base64url");
  const directSocket = [{ host: "127.0.0.1", port: 0 }];
  // BENCH_WORKERD_STDOUT=miniflare leaves workerd's stdout to Miniflare, as before, to measure what that costs.
  const stdout = process.env.BENCH_WORKERD_STDOUT === "miniflare" ? undefined : workerdStdoutToFile(dirname(scriptPath));
  // This Miniflare (5.x beta) takes a new options shape; the converter accepts the documented
  // v4 shape, which is also what wrangler's config reader returns.
  const options = convertV4MiniflareOptions({
    // No resourcePersistencePath: KV, D1 and the object's storage live in a temp dir that
    // dispose() deletes.
    host: "127.0.0.1",
    port: 0,
    // Placeholder `cf` values: the real one is fetched from the internet, which we do not have.
    cf: false,
    enableDevRegistry: false,
    log: new Log(LogLevel.WARN),
    handleStructuredLogs: exposeGc ? printBenchWarnings : printWarningsOnly,
    // Only scripts/bench/profile.ts sets it: workerd then serves the V8 inspector there.
    ...(inspectorPort === undefined ? {} : { inspectorPort }),
    workers: [
      {
        name: WORKER_NAME,
        modules: workerModules(scriptPath),
        compatibilityDate: fromConfig.compatibilityDate,
        compatibilityFlags: fromConfig.compatibilityFlags,
        bindings: { ...fromConfig.bindings, ...BENCH_VARS, ...vars, ADMIN_TOKEN: adminToken },
        kvNamespaces: fromConfig.kvNamespaces,
        d1Databases: fromConfig.d1Databases,
        // The files toolset's WORKSPACE bucket (workspace-files scenario).
        r2Buckets: fromConfig.r2Buckets,
        durableObjects: fromConfig.durableObjects,
        queueProducers: { ...fromConfig.queueProducers, [AUDIT_SINK_BINDING]: { queueName: AUDIT_SINK_QUEUE } },
        queueConsumers: fromConfig.queueConsumers,
        unsafeDirectSockets: directSocket,
      },
      // Peers run with toolgate's runtime settings and no bindings: each is one module.
      ...peers.map((peer) => ({
        name: peer.name,
        modules: true,
        scriptPath: peer.scriptPath,
        compatibilityDate: fromConfig.compatibilityDate,
        compatibilityFlags: fromConfig.compatibilityFlags,
        unsafeDirectSockets: directSocket,
      })),
    ],
  });
  // Miniflare spawns workerd between its construction and `ready`: the overrides hold until then.
  const start = async () => {
    const mf = new Miniflare(options);
    try {
      return { mf, entryUrl: await mf.ready };
    } catch (error) {
      await mf.dispose();
      // A workerd that failed to start said why in its output, as often as not.
      await reportStdout(stdout, exposeGc);
      throw error;
    }
  };
  const flagged = exposeGc ? () => withGcExposed(start) : start;
  const { mf, entryUrl } = stdout === undefined ? await flagged() : await stdout.spawning(flagged);
  try {
    const url = await mf.unsafeGetDirectURL(WORKER_NAME);
    const peerUrls: Record<string, URL> = {};
    for (const peer of peers) peerUrls[peer.name] = await mf.unsafeGetDirectURL(peer.name);
    const db = await mf.getD1Database("DB", WORKER_NAME);
    await db.batch(migrationStatements(configPath).map((statement) => db.prepare(statement)));
    const dispose = async () => {
      await mf.dispose();
      await reportStdout(stdout, exposeGc);
    };
    return { url, entryUrl, peerUrls, adminToken, dispose };
  } catch (error) {
    await mf.dispose();
    // What workerd wrote during a failed setup is why it failed, as often as not.
    await reportStdout(stdout, exposeGc);
    throw error;
  }
}

/**
 * Runs `start` with V8's --expose-gc added to the flags Miniflare passes to workerd, which it
 * reads only through this variable while it builds workerd's config (before `ready`); the
 * variable is put back however `start` ends, so no later workerd of this process inherits it
 * (the start-up scenario's fresh workerds must not: the flag fails workerd's check of its
 * bootstrap code cache, whose code is then compiled from source).
 */
async function withGcExposed<T>(start: () => Promise<T>): Promise<T> {
  const before = process.env.MINIFLARE_WORKERD_V8_FLAGS;
  const flags = (before ?? "").split(" ").filter((flag) => flag !== "");
  if (!flags.includes(EXPOSE_GC_FLAG)) process.env.MINIFLARE_WORKERD_V8_FLAGS = [...flags, EXPOSE_GC_FLAG].join(" ");
  try {
    return await start();
  } finally {
    if (before === undefined) delete process.env.MINIFLARE_WORKERD_V8_FLAGS;
    else process.env.MINIFLARE_WORKERD_V8_FLAGS = before;
  }
}

/** Prints the warnings and errors workerd wrote to its file, and how many lines it wrote. */
async function reportStdout(stdout: WorkerdStdout | undefined, exposeGc: boolean): Promise<void> {
  if (stdout === undefined) return;
  const lines = await stdout.report(exposeGc ? printBenchWarnings : printWarningsOnly);
  process.stderr.write(`bench: workerd wrote ${lines} console lines to ${stdout.path}\n`);
}
