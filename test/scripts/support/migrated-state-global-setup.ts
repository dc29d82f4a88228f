/**
 * vitest globalSetup of the scripts project: the D1 migrations applied once per run, by the
 * command `npm start` runs first, into a state directory each local Worker starts from a copy of
 * (test/scripts/support/local-worker.ts).
 *
 * Why once: `wrangler d1 migrations apply --local` starts and stops a Miniflare (a workerd) for
 * every migration file, plus one to list what is applied: 17 workerd starts for 16 migrations,
 * 8-9 s of CPU, and 100-120 s of wall time on the loaded 2-core machine (2026-12-05). Run per
 * file, that was most of a browser test's start, and several files doing it at once is what
 * outran their 120 s beforeAll on 2026-12-01 (vitest.config.ts).
 *
 * Why in the background: setup must return before any test starts, and the scripts files run
 * last (sequence.groupOrder), minutes later; the first of them waits for the marker file only if
 * the command has not finished by then.
 */
import { mkdtempSync } from "node:fs";
import { rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";
import { applyMigrations, MIGRATED_STATE_KEY, migratedStatePaths } from "./migrated-state.ts";

export default function setup(project: TestProject): () => Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "toolgate-migrated-"));
  const paths = migratedStatePaths(dir);
  const applying = applyMigrations(paths.state);
  const applied = applying.then(
    () => writeFile(paths.ready, ""),
    (error: unknown) => writeFile(paths.failed, String(error instanceof Error ? error.message : error)),
  );
  project.provide(MIGRATED_STATE_KEY, dir);
  return async function removeMigratedState() {
    // A run of scripts files that start no Worker ends before the command does: stop it (wrangler
    // stops its workerd on SIGTERM) rather than wait for state nobody reads.
    const { child } = applying;
    if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) process.kill(child.pid, "SIGTERM");
    await applied;
    await rm(dir, { recursive: true, force: true });
  };
}
