/**
 * Serves the bench Worker in workerd through Miniflare's API, with the real wrangler.toml's
 * compatibility settings, vars and local (in-memory) KV and D1.
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
import { convertV4MiniflareOptions, Log, LogLevel, Miniflare, type V4WorkerOptions } from "miniflare";
import { unstable_getMiniflareWorkerOptions } from "wrangler";

const WORKER_NAME = "toolgate-bench";

/** What we take from wrangler.toml: the runtime settings and the bindings, not its `main`. */
export type ConfigOptions = Pick<V4WorkerOptions, "compatibilityDate" | "compatibilityFlags" | "bindings" | "kvNamespaces" | "d1Databases">;

export interface ServedWorker {
  /** The user Worker's own socket (no Miniflare entry Worker in front). */
  url: URL;
  /** The entry Worker's URL, for comparing what the extra hop costs. */
  entryUrl: URL;
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

/** Starts workerd with `scriptPath` as the Worker, using the bindings of `configPath`. */
export async function serveWorker(scriptPath: string, configPath: string): Promise<ServedWorker> {
  const fromConfig = readConfigOptions(configPath);
  // This Miniflare (5.x beta) takes a new options shape; the converter accepts the documented
  // v4 shape, which is also what wrangler's config reader returns.
  const mf = new Miniflare(convertV4MiniflareOptions({
    name: WORKER_NAME,
    modules: true,
    scriptPath,
    compatibilityDate: fromConfig.compatibilityDate,
    compatibilityFlags: fromConfig.compatibilityFlags,
    bindings: fromConfig.bindings,
    kvNamespaces: fromConfig.kvNamespaces,
    d1Databases: fromConfig.d1Databases,
    // No resourcePersistencePath: KV and D1 live in a temp dir that dispose() deletes.
    host: "127.0.0.1",
    port: 0,
    unsafeDirectSockets: [{ host: "127.0.0.1", port: 0 }],
    // Placeholder `cf` values: the real one is fetched from the internet, which we do not have.
    cf: false,
    enableDevRegistry: false,
    log: new Log(LogLevel.WARN),
  }));
  try {
    const entryUrl = await mf.ready;
    const url = await mf.unsafeGetDirectURL(WORKER_NAME);
    return { url, entryUrl, dispose: () => mf.dispose() };
  } catch (error) {
    await mf.dispose();
    throw error;
  }
}
