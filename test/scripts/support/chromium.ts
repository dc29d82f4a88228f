/**
 * Debian's chromium (`apt-get install chromium`, done by .ci/run), driven by playwright-core:
 * headless, with a fresh profile, and with everything that would reach the network on its own
 * (updates, sync, QUIC probes) switched off.
 */
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium } from "playwright-core";

export const CHROMIUM_PATH = "/usr/bin/chromium";

const ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/**
 * Whether the browser test can run here. Without chromium it is skipped on a developer's
 * machine (with a loud message) but must fail under CI, where .ci/run installs it.
 */
export function chromiumAvailability(
  path = CHROMIUM_PATH,
  env: Record<string, string | undefined> = process.env,
): { run: true } | { run: false; message: string } {
  if (existsSync(path)) return { run: true };
  const message = `${path} is missing: install Debian's chromium (apt-get install -y --no-install-recommends chromium) to run the approvals page browser test.`;
  if (env.CI !== undefined && env.CI !== "") throw new Error(`CI is set and ${message}`);
  return { run: false, message };
}

export interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

/** Launches chromium with a fresh profile directory, removed again by `close()`. */
export async function launchChromium(): Promise<Browser> {
  const profile = await mkdtemp(join(tmpdir(), "toolgate-chromium-"));
  const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM_PATH, headless: true, args: ARGS });
  return {
    context,
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}
