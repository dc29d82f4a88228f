/**
 * The real `@modelcontextprotocol/server-everything`, run as child processes on loopback for the
 * federation tests (Node side: vitest's globalSetup starts them, the outbound stand-in
 * (upstream.ts) stops and restarts them when a test asks, and teardown stops them by PID).
 *
 * State sits on globalThis because vitest loads this module twice in one process (once for
 * the config's outbound stand-in, once for globalSetup), and both must see the same children.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createRequire } from "node:module";
import { connect } from "node:net";
import { EVERYTHING_PORT, EVERYTHING_SSE_PORT } from "./test-env.ts";

type Mode = "streamableHttp" | "sse";

const MODES: Record<number, Mode> = { [EVERYTHING_PORT]: "streamableHttp", [EVERYTHING_SSE_PORT]: "sse" };
const START_TIMEOUT_MS = 15_000;
const STOP_TIMEOUT_MS = 5_000;

const children: Map<number, ChildProcess> = ((globalThis as { __toolgateEverything?: Map<number, ChildProcess> }).__toolgateEverything ??= new Map());

const entry = createRequire(import.meta.url).resolve("@modelcontextprotocol/server-everything/dist/index.js");

/** Whether `port` is one of ours. */
export function isEverythingPort(port: number): boolean {
  return MODES[port] !== undefined;
}

// A run that ends without its teardown (vitest exits on an unhandled error) would leave the
// children serving the fixed ports, and the next run's tests would talk to them instead of to
// their own: kill them as the process exits, which only synchronous work can do.
const holder = globalThis as { __toolgateEverythingExitHook?: boolean };
if (holder.__toolgateEverythingExitHook !== true) {
  holder.__toolgateEverythingExitHook = true;
  process.once("exit", () => {
    for (const child of children.values()) if (child.exitCode === null) child.kill("SIGKILL");
  });
}

/** Whether something already accepts connections on loopback `port`. */
function portTaken(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: "127.0.0.1" });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/** Starts the server for `port` (its mode is fixed per port) and waits until it listens. */
export async function startEverything(port: number): Promise<void> {
  const mode = MODES[port];
  if (mode === undefined) throw new Error(`no server-everything mode for port ${port}`);
  if (children.has(port)) return;
  // A stranger on the port (another run's server, or one a crashed run left behind) would answer
  // in our child's place, and a test that stops "the server" would stop only ours.
  if (await portTaken(port))
    throw new Error(`port ${port} is already in use on 127.0.0.1 (a server-everything left by an earlier run, or another test run): stop that process first`);
  const child = spawn(process.execPath, [entry, mode], { env: { ...process.env, PORT: String(port) }, stdio: ["ignore", "ignore", "pipe"] });
  children.set(port, child);
  await new Promise<void>((resolve, reject) => {
    let log = "";
    const timer = setTimeout(
      () => done(new Error(`server-everything (${mode}) did not listen on ${port} within ${START_TIMEOUT_MS} ms: ${log}`)),
      START_TIMEOUT_MS,
    );
    function done(error?: Error) {
      clearTimeout(timer);
      child.stderr?.removeAllListeners("data");
      // Keep draining stderr so the child never blocks on a full pipe.
      child.stderr?.resume();
      if (error === undefined) resolve();
      else reject(error);
    }
    child.stderr?.on("data", (chunk: Buffer) => {
      log += chunk.toString();
      // Streamable HTTP prints "listening on port"; SSE prints "Server is running on port".
      if (/listening on port|running on port/i.test(log)) done();
    });
    child.once("exit", (code) => {
      children.delete(port);
      done(new Error(`server-everything (${mode}) exited with ${code}: ${log}`));
    });
  });
}

/** Stops the server on `port` by its PID and waits for it to exit. */
export async function stopEverything(port: number): Promise<void> {
  const child = children.get(port);
  if (child === undefined) return;
  children.delete(port);
  if (child.exitCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), STOP_TIMEOUT_MS);
  await exited;
  clearTimeout(timer);
}

/** Stops every server this module started. */
export async function stopAllEverything(): Promise<void> {
  await Promise.all([...children.keys()].map(stopEverything));
}
