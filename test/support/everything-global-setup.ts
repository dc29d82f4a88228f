/**
 * vitest globalSetup of the worker project: the real server-everything on loopback, in both
 * its transports, for the federation tests; stopped by PID when the run ends.
 */
import { startEverything, stopAllEverything } from "./everything-server.ts";
import { EVERYTHING_PORT, EVERYTHING_SSE_PORT } from "./test-env.ts";

export async function setup(): Promise<void> {
  await Promise.all([startEverything(EVERYTHING_PORT), startEverything(EVERYTHING_SSE_PORT)]);
}

export async function teardown(): Promise<void> {
  await stopAllEverything();
}
