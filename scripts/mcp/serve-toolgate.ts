/**
 * The real Worker (src/index.ts, bundled as the bench bundles its Worker) in workerd through Miniflare, with
 * wrangler.toml's settings and bindings, local storage in a temp dir, the D1 migrations applied
 * and a random ADMIN_TOKEN: what the MCP conformance test and the SDK client test talk to.
 * Requests go to the Worker's own socket (`unsafeDirectSockets`), so the Host and Origin a client
 * sends reach the Worker unchanged, which the DNS-rebinding checks depend on.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { convertV4MiniflareOptions, Log, LogLevel, Miniflare } from "miniflare";
import { bundleWorker, workerAlias } from "../bench/build-worker.ts";
import { migrationStatements, readConfigOptions, workerModules } from "../bench/serve.ts";

const WORKER_NAME = "toolgate";

export interface ServedToolgate {
  /** The Worker's own socket, e.g. http://127.0.0.1:9231. */
  url: URL;
  adminToken: string;
  dispose(): Promise<void>;
}

/**
 * Serves toolgate on 127.0.0.1: Miniflare's entry on `entryPort`, the Worker itself on
 * `directPort` (pass ports from your own range; nothing else is opened). `vars` override
 * wrangler.toml's [vars].
 */
export async function serveToolgate(
  root: string,
  { entryPort, directPort, vars = {} }: { entryPort: number; directPort: number; vars?: Record<string, string> },
): Promise<ServedToolgate> {
  const outDir = mkdtempSync(join(tmpdir(), "toolgate-mcp-"));
  const alias = workerAlias(join(root, "wrangler.toml"));
  const scriptPath = await bundleWorker(join(root, "src/index.ts"), join(outDir, "worker.mjs"), { alias });
  const config = readConfigOptions(join(root, "wrangler.toml"));
  const adminToken = randomBytes(32).toString("base64url");
  const mf = new Miniflare(
    convertV4MiniflareOptions({
      name: WORKER_NAME,
      // The bundle and the .wasm files copied beside it (QuickJS), as wrangler uploads them.
      // Module names are paths relative to this root; the bundle sits in a temp dir of its own.
      modules: workerModules(scriptPath),
      modulesRoot: outDir,
      compatibilityDate: config.compatibilityDate,
      compatibilityFlags: config.compatibilityFlags,
      bindings: { ...config.bindings, ...vars, ADMIN_TOKEN: adminToken },
      kvNamespaces: config.kvNamespaces,
      d1Databases: config.d1Databases,
      r2Buckets: config.r2Buckets,
      durableObjects: config.durableObjects,
      queueProducers: config.queueProducers,
      queueConsumers: config.queueConsumers,
      host: "127.0.0.1",
      port: entryPort,
      unsafeDirectSockets: [{ host: "127.0.0.1", port: directPort }],
      cf: false,
      enableDevRegistry: false,
      log: new Log(LogLevel.WARN),
    }),
  );
  const dispose = async () => {
    await mf.dispose();
    rmSync(outDir, { recursive: true, force: true });
  };
  try {
    await mf.ready;
    const url = await mf.unsafeGetDirectURL(WORKER_NAME);
    const db = await mf.getD1Database("DB");
    await db.batch(migrationStatements(join(root, "wrangler.toml")).map((statement) => db.prepare(statement)));
    return { url, adminToken, dispose };
  } catch (error) {
    await dispose();
    throw error;
  }
}

/** Creates an API key through the admin API; returns the key. */
export async function createKey(served: ServedToolgate, body: Record<string, unknown>): Promise<string> {
  const response = await fetch(new URL("/v1/keys", served.url), {
    method: "POST",
    headers: { authorization: `Bearer ${served.adminToken}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (response.status !== 201) throw new Error(`creating a key failed: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { key: string }).key;
}
