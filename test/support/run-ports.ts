/**
 * Loopback ports for this test run's server-everything, picked free when the run starts, so two
 * runs on one machine (or a server a crashed run left behind) never answer each other's tests.
 * vitest.config.ts imports this first, in Node: the ports go into process.env, which test-env.ts
 * reads there, and into the Worker's bindings, which workerd's process.env holds for the tests.
 */
import { createServer } from "node:net";

export const EVERYTHING_PORT_VAR = "TOOLGATE_EVERYTHING_PORT";
export const EVERYTHING_SSE_PORT_VAR = "TOOLGATE_EVERYTHING_SSE_PORT";

/** A port the system gives for loopback and takes back at once. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address !== null ? resolve(address.port) : reject(new Error("no port"))));
    });
  });
}

// Set once per run: vitest's workers inherit the main process's environment.
for (const name of [EVERYTHING_PORT_VAR, EVERYTHING_SSE_PORT_VAR]) process.env[name] ??= String(await freePort());
