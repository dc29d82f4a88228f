/**
 * The real Worker, served locally the way `npm start` serves it: wrangler's own dev server
 * (workerd, with local D1, KV, queues and Durable Objects from wrangler.toml), on a fixed port or
 * an ephemeral one (port 0), with its D1 migrations applied to a fresh, private state directory.
 */
import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { unstable_startWorker } from "wrangler";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const WRANGLER = join(ROOT, "node_modules/wrangler/bin/wrangler.js");

export interface LocalWorkerOptions {
  /** 0 (the default) lets the system pick a free port; `origin` says which. */
  port?: number;
  /** Secrets ([vars] are read from wrangler.toml and may be overridden in `vars`). */
  secrets: Record<string, string>;
  vars?: Record<string, string>;
}

export interface LocalWorker {
  /** e.g. `http://127.0.0.1:9260` */
  origin: string;
  dispose(): Promise<void>;
}

/** Starts the Worker; `dispose()` stops it and deletes its state. */
export async function startLocalWorker({ port = 0, secrets, vars = {} }: LocalWorkerOptions): Promise<LocalWorker> {
  const state = await mkdtemp(join(tmpdir(), "toolgate-worker-"));
  // The same command `npm start` runs first; CI=true answers its confirmation prompt.
  await promisify(execFile)(process.execPath, [WRANGLER, "d1", "migrations", "apply", "DB", "--local", "--persist-to", state], {
    cwd: ROOT,
    env: { ...process.env, CI: "true" },
  });
  const bindings = {
    ...Object.fromEntries(Object.entries(secrets).map(([name, value]) => [name, { type: "secret_text" as const, value }])),
    ...Object.fromEntries(Object.entries(vars).map(([name, value]) => [name, { type: "plain_text" as const, value }])),
  };
  const worker = await unstable_startWorker({
    config: join(ROOT, "wrangler.toml"),
    bindings,
    dev: { server: { hostname: "127.0.0.1", port }, inspector: false, persist: state, watch: false, logLevel: "warn" },
  });
  let origin: string;
  try {
    await worker.ready;
    origin = (await worker.url).origin;
  } catch (error) {
    await worker.dispose();
    throw error;
  }
  return {
    origin,
    async dispose() {
      await worker.dispose();
      await rm(state, { recursive: true, force: true });
    },
  };
}
