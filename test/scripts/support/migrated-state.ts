/**
 * The D1 migrations of migrations/, applied to a local state directory by the command `npm start`
 * runs first, and the run's one migrated state that local Workers copy (see
 * migrated-state-global-setup.ts for why there is one).
 */
import { execFile, type PromiseWithChild } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { inject } from "vitest";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const WRANGLER = join(ROOT, "node_modules/wrangler/bin/wrangler.js");
/** The vitest `provide` key naming the run's migrated state directory. */
export const MIGRATED_STATE_KEY = "toolgateMigratedState";
/** Longer than the command took on the loaded machine (about 120 s), so a failure names it rather than a hook timeout. */
const WAIT_MS = 180_000;
const POLL_MS = 100;

declare module "vitest" {
  export interface ProvidedContext {
    [MIGRATED_STATE_KEY]: string;
  }
}

/** Where the setup writes the state, and the marker it leaves when the command has ended. */
export function migratedStatePaths(dir: string): { state: string; ready: string; failed: string } {
  return { state: join(dir, "state"), ready: join(dir, "ready"), failed: join(dir, "failed") };
}

/**
 * `wrangler d1 migrations apply DB --local` into `state`; CI=true answers its confirmation prompt.
 * The promise carries the child process, so a caller that no longer needs the state can stop it.
 */
export function applyMigrations(state: string): PromiseWithChild<unknown> {
  return promisify(execFile)(process.execPath, [WRANGLER, "d1", "migrations", "apply", "DB", "--local", "--persist-to", state], {
    cwd: ROOT,
    env: { ...process.env, CI: "true" },
  });
}

/**
 * The run's migrated state directory, once the setup's command has ended; undefined when this
 * file runs without that setup (another project), so the caller applies the migrations itself.
 */
export async function migratedState(): Promise<string | undefined> {
  const dir = inject(MIGRATED_STATE_KEY);
  if (dir === undefined) return undefined;
  const paths = migratedStatePaths(dir);
  const deadline = Date.now() + WAIT_MS;
  while (!existsSync(paths.ready)) {
    if (existsSync(paths.failed)) throw new Error(`applying the D1 migrations failed: ${readFileSync(paths.failed, "utf8")}`);
    if (Date.now() > deadline) throw new Error(`the D1 migrations were still being applied into ${paths.state} after ${WAIT_MS / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  return paths.state;
}
