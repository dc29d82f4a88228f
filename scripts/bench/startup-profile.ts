/**
 * A Worker's start-up, measured as `wrangler check startup` measures it (wrangler's
 * deploy-helpers startup-profile.ts, read in node_modules/wrangler): a fresh workerd whose entry
 * module `import()`s the Worker's main module on the first request, so the module's evaluation
 * runs inside a request, under V8's CPU profiler at its default sampling interval; "Active" is
 * the sampled time less the `(idle)` samples (garbage collection included). Then, in the same
 * still-cold isolate, one more profile around the Worker's first real request (a tool call):
 * start-up plus that profile is what the first request on a cold isolate costs.
 *
 * Why not spawn `wrangler check startup` itself: it rebuilds the Worker (seconds) and has no
 * way to send a request after the import, and a Worker with Durable Objects needs their classes
 * exported from the entry, which would evaluate the module before the profiler starts. Here a
 * second copy of the Worker (the "host") serves the Durable Objects and queues, bound by script
 * name, so the profiled isolate imports nothing before its measured request.
 */
import { randomUUID } from "node:crypto";
import { basename, dirname } from "node:path";
import { convertV4MiniflareOptions, Log, LogLevel, Miniflare, type V4WorkerOptions } from "miniflare";
import { connectInspector } from "./inspector.ts";
import { type ConfigOptions, printWarningsOnly } from "./serve.ts";
import { childProcesses, threadsCpuMs } from "./server-cpu.ts";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string };
}
/** The parts of a V8 CPU profile read here. */
export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

/** wrangler's summary of a start-up profile, in ms. */
export interface ProfileSummary {
  activeMs: number;
  garbageCollectionMs: number;
  sampleCount: number;
}

/** Sampled time less idle, as `wrangler check startup` prints "Active". */
export function summarizeProfile(profile: CpuProfile): ProfileSummary {
  const names = new Map(profile.nodes.map((node) => [node.id, node.callFrame.functionName]));
  const samples = profile.samples ?? [];
  let sampled = 0;
  let idle = 0;
  let gc = 0;
  for (const [i, delta] of (profile.timeDeltas ?? []).entries()) {
    sampled += delta;
    const name = names.get(samples[i] ?? 0);
    if (name === "(idle)") idle += delta;
    else if (name === "(garbage collector)") gc += delta;
  }
  return { activeMs: (sampled - idle) / 1000, garbageCollectionMs: gc / 1000, sampleCount: samples.length };
}

/** A request, as the first one a cold isolate serves. */
export interface FirstRequest {
  path: string;
  body: string;
  headers: Record<string, string>;
  /** Throws when the answer is not the tool's result (a start-up that fails must not pass as fast). */
  check(status: number, body: string): void;
}

/** One Worker to start: its main module first, then any .wasm modules, all in one folder. */
export interface StartupWorker {
  modules: { type: "ESModule" | "CompiledWasm"; path: string }[];
  /** Runtime settings and bindings (wrangler.toml's, for toolgate); none for a peer. */
  config?: ConfigOptions;
  /** Extra vars (toolgate's ADMIN_TOKEN). */
  vars?: Record<string, string>;
  /** D1 statements to run before the profile (toolgate's migrations), through the host copy. */
  setUp?: (mf: Miniflare) => Promise<void>;
  /** V8's sampling interval in µs; unset, its default, as wrangler leaves it (profile.ts sets a finer one). */
  samplingIntervalUs?: number;
}

export interface StartupRun {
  startup: ProfileSummary;
  firstCall: ProfileSummary;
  /**
   * The CPU workerd's threads ran during each (the scheduler's account: NaN off Linux). It adds
   * the profiler's and Miniflare's own small share, but another process taking the core does
   * not inflate it, as it does the profile's sampled time on a loaded machine.
   */
  workerdCpuMs: { startup: number; firstCall: number };
  /** The start-up profile, for DevTools. */
  profile: CpuProfile;
  /** The first request's profile (scripts/bench/startup-breakdown.ts reads either). */
  firstCallProfile: CpuProfile;
}

const PROFILED = "profiled";
/** The copy of the Worker that serves its Durable Objects and queues (and a setUp's D1 access). */
export const STARTUP_HOST = "host";

/** The profiler's entry: imports the Worker on `/__startup`, hands every later request to it. */
function entrySource(mainModule: string): string {
  return `let main;
export default {
  async fetch(request, env, ctx) {
    if (new URL(request.url).pathname === "/__startup") {
      main = await import(${JSON.stringify(`./${mainModule}`)});
      return new Response("ok");
    }
    return main.default.fetch(request, env, ctx);
  },
};
`;
}

/** Points every Durable Object binding at the host copy, which exports the classes. */
function objectsOnHost(config: ConfigOptions | undefined): Pick<V4WorkerOptions, "durableObjects"> {
  const bound = config?.durableObjects ?? {};
  return {
    durableObjects: Object.fromEntries(
      Object.entries(bound).map(([name, value]) => [name, { className: typeof value === "string" ? value : value.className, scriptName: STARTUP_HOST }]),
    ),
  };
}

/**
 * Starts `worker` in a fresh workerd, profiles its start-up and then its first request, and
 * disposes of workerd. Each call is a new process, so every run is a cold isolate.
 *
 * @example
 * const run = await profileStartup({ modules: [{ type: "ESModule", path: "/tmp/bare.mjs" }] }, echoCall);
 * console.log(run.startup.activeMs, run.startup.activeMs + run.firstCall.activeMs);
 */
export async function profileStartup(worker: StartupWorker, first: FirstRequest): Promise<StartupRun> {
  const [main, ...rest] = worker.modules;
  if (main === undefined) throw new Error("startup: a Worker needs a main module");
  const folder = dirname(main.path);
  const { config, vars = {} } = worker;
  const runtime = {
    compatibilityDate: config?.compatibilityDate ?? "2026-10-01",
    compatibilityFlags: config?.compatibilityFlags ?? ["nodejs_compat"],
  };
  const bindings = {
    bindings: { ...config?.bindings, ...vars },
    kvNamespaces: config?.kvNamespaces,
    d1Databases: config?.d1Databases,
    r2Buckets: config?.r2Buckets,
    queueProducers: config?.queueProducers,
  };
  const modules = [main, ...rest].map((m) => ({ type: m.type, path: m.path }));
  // First: Miniflare's dispatchFetch goes to the first Worker, as wrangler's profiler relies on.
  const workers: V4WorkerOptions[] = [
    {
      name: PROFILED,
      modulesRoot: folder,
      modules: [{ type: "ESModule", path: `${folder}/${randomUUID()}.mjs`, contents: entrySource(basename(main.path)) }, ...modules],
      ...runtime,
      ...bindings,
      ...objectsOnHost(config),
    },
  ];
  if (config !== undefined) {
    workers.push({
      name: STARTUP_HOST,
      modulesRoot: folder,
      modules,
      ...runtime,
      ...bindings,
      durableObjects: config.durableObjects,
      queueConsumers: config.queueConsumers,
    });
  }
  const before = new Set(childProcesses("workerd"));
  const mf = new Miniflare(
    convertV4MiniflareOptions({
      host: "127.0.0.1",
      port: 0,
      cf: false,
      enableDevRegistry: false,
      log: new Log(LogLevel.ERROR),
      // The first call's request and call log lines, kept out of the report as every scenario's are.
      handleStructuredLogs: printWarningsOnly,
      inspectorPort: 0,
      workers,
    }),
  );
  try {
    await mf.ready;
    await worker.setUp?.(mf);
    const pid = childProcesses("workerd").find((p) => !before.has(p));
    const inspectorUrl = await mf.getInspectorURL();
    const session = await connectInspector(new URL(`/core:user:${PROFILED}`, inspectorUrl.href).href);
    const cpu = { startup: Number.NaN, firstCall: Number.NaN };
    const measure = async (what: keyof typeof cpu, send: () => Promise<void>): Promise<CpuProfile> => {
      await session.send("Profiler.enable");
      if (worker.samplingIntervalUs !== undefined) await session.send("Profiler.setSamplingInterval", { interval: worker.samplingIntervalUs });
      await session.send("Profiler.start");
      const started = threadsCpuMs(pid);
      await send();
      cpu[what] = threadsCpuMs(pid) - started;
      const { profile } = (await session.send("Profiler.stop")) as { profile: CpuProfile };
      return profile;
    };
    try {
      const profile = await measure("startup", async () => {
        const answer = await mf.dispatchFetch("http://localhost/__startup");
        const text = await answer.text();
        if (!answer.ok) throw new Error(`startup: importing ${basename(main.path)} failed: ${answer.status} ${text.slice(0, 500)}`);
      });
      const call = await measure("firstCall", async () => {
        const answer = await mf.dispatchFetch(`http://localhost${first.path}`, { method: "POST", body: first.body, headers: first.headers });
        first.check(answer.status, await answer.text());
      });
      return { startup: summarizeProfile(profile), firstCall: summarizeProfile(call), workerdCpuMs: cpu, profile, firstCallProfile: call };
    } finally {
      session.close();
    }
  } finally {
    await mf.dispose();
  }
}
