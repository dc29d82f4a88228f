/**
 * The real Worker, served locally the way `npm start` serves it: wrangler's own dev server
 * (workerd, with local D1, KV, queues and Durable Objects from wrangler.toml), on a fixed port or
 * an ephemeral one (port 0), with its D1 migrations applied to a fresh, private state directory
 * (a copy of the run's one migrated state: see migrated-state-global-setup.ts).
 */
import { cp, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { unstable_startWorker } from "wrangler";
import { applyMigrations, migratedState } from "./migrated-state.ts";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

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
  // A copy of the run's migrated state (migrated-state-global-setup.ts), or, outside the scripts
  // project, the same command `npm start` runs first.
  const migrated = await migratedState();
  if (migrated === undefined) await applyMigrations(state);
  else await cp(migrated, state, { recursive: true });
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
