/**
 * Evidence for how scripts/bench/serve.ts serves the bench Worker: the same bundle behind
 * (1) a raw `workerd serve` capnp config, (2) Miniflare's direct socket, (3) Miniflare's entry
 * Worker (`mf.ready`), in alternating rounds. Raw workerd has no local KV/D1, so it gets the
 * vars only; the routes compared here never touch KV or D1.
 *
 * @example
 * ```sh
 * node scripts/bench/compare-serving.ts    # about a minute
 * ```
 */
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { dirname, join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { buildBenchWorker } from "./build-worker.ts";
import { LoadClient, type RequestSpec } from "./load.ts";
import { BARE_CALL_PATH, CORE_PIPELINE, ECHO_CALL_BODY, PIPELINE_HEADER, TOOL_CALLS_PATH } from "./requests.ts";
import { readConfigOptions, serveWorker } from "./serve.ts";
import { median } from "./stats.ts";
import { WORKERD_PATH } from "./workerd.ts";

const ROUNDS = 3;
const ROUND_MS = 2_500;
const CONCURRENCY = 8;

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const benchDir = join(root, ".bench");

/** A port the OS just had free; workerd binds it right after (a tiny race, fine locally). */
function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address !== null ? done(address.port) : fail(new Error("no port"))));
    });
  });
}

function capnpConfig(port: number, compatibilityDate: string, compatibilityFlags: readonly string[], vars: Record<string, string>): string {
  const bindings = Object.entries(vars).map(([name, value]) => `(name = ${JSON.stringify(name)}, text = ${JSON.stringify(value)})`);
  return `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [ (name = "main", worker = .bench) ],
  sockets = [ (name = "http", address = "127.0.0.1:${port}", http = (), service = "main") ],
);
const bench :Workerd.Worker = (
  modules = [ (name = "worker.mjs", esModule = embed "worker.mjs") ],
  compatibilityDate = ${JSON.stringify(compatibilityDate)},
  compatibilityFlags = ${JSON.stringify(compatibilityFlags)},
  bindings = [ ${bindings.join(", ")} ],
);
`;
}

async function waitUntilServing(client: LoadClient): Promise<void> {
  for (let attempt = 0; attempt < 50; attempt++) {
    try {
      await client.send({ method: "GET", path: "/" });
      return;
    } catch {
      await sleep(200);
    }
  }
  throw new Error("compare-serving: raw workerd did not start within 10 s");
}

const configPath = join(root, "wrangler.toml");
const scriptPath = await buildBenchWorker(root, benchDir);
const { bindings = {}, compatibilityDate = "", compatibilityFlags = [] } = readConfigOptions(configPath);
const vars = Object.fromEntries(Object.entries(bindings).filter((entry): entry is [string, string] => typeof entry[1] === "string"));
const served = await serveWorker(scriptPath, configPath);
const port = await freePort();
// The same token for raw workerd, so one Authorization header works on every target.
writeFileSync(join(benchDir, "raw.capnp"), capnpConfig(port, compatibilityDate, compatibilityFlags, { ...vars, ADMIN_TOKEN: served.adminToken }));
const auth = { authorization: `Bearer ${served.adminToken}` };
const raw = spawn(WORKERD_PATH, ["serve", join(benchDir, "raw.capnp")], { stdio: ["ignore", "ignore", "inherit"] });
const rawClient = new LoadClient(new URL(`http://127.0.0.1:${port}`), CONCURRENCY, auth);
const targets = [
  { name: "raw workerd serve", client: rawClient },
  { name: "Miniflare direct socket", client: new LoadClient(served.url, CONCURRENCY, auth) },
  { name: "Miniflare entry (mf.ready)", client: new LoadClient(served.entryUrl, CONCURRENCY, auth) },
];
try {
  await waitUntilServing(rawClient);
  const requests: RequestSpec[] = [BARE_CALL_PATH, TOOL_CALLS_PATH].map((path) => ({
    method: "POST",
    path,
    body: ECHO_CALL_BODY,
    headers: { [PIPELINE_HEADER]: CORE_PIPELINE },
  }));
  const rps = new Map<string, number[]>();
  for (let round = 0; round <= ROUNDS; round++) {
    for (const { name, client } of targets) {
      for (const request of requests) {
        const label = `${name}  ${request.path}`;
        // Round 0 warms every target up and is not recorded.
        if (round === 0) await client.send(request);
        const result = await client.round(request, { concurrency: CONCURRENCY, durationMs: round === 0 ? 1_000 : ROUND_MS });
        if (round > 0) rps.set(label, [...(rps.get(label) ?? []), (result.requests * 1000) / result.elapsedMs]);
      }
    }
  }
  for (const [label, values] of rps) {
    console.log(`${label.padEnd(50)} ${median(values).toFixed(0).padStart(6)} req/s  (rounds: ${values.map((v) => v.toFixed(0)).join(" ")})`);
  }
} finally {
  await Promise.all(targets.map((t) => t.client.close()));
  raw.kill("SIGTERM");
  await served.dispose();
}
