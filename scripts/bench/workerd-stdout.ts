/**
 * Where the bench's workerd writes its console output: a file, not Miniflare.
 *
 * Miniflare reads workerd's stdout through a socket pair, and with structured logging every
 * console.log is one write to it, which wakes Miniflare's Node process from its wait. The Worker
 * writes one line per request and one per call (src/tracing/request-log.ts, observe-calls.ts), so
 * each request paid for that wake-up in workerd's own CPU: `perf` over /mcp tools/call put 6.6% of
 * workerd's samples in those writes (kernel side, ksys_write -> unix_stream_sendmsg), about 16 us
 * of a 250 us call. Production has no reader to wake: the platform collects a Worker's log lines
 * with the invocation and ships them after it, off the Worker's CPU time. So workerd writes to a
 * file here, as it would to any sink that does not wait on each line; the Worker still builds and
 * writes every line (workerd still formats each one and makes the write), and the file holds them.
 *
 * `BENCH_WORKERD_STDOUT=miniflare npm run bench` serves it as before, to compare.
 *
 * Miniflare starts whatever MINIFLARE_WORKERD_PATH names (its documented override): a two-line
 * shell script that execs the real binary with stdout redirected, so the process the bench
 * measures is still workerd itself, a direct child of this one.
 */
import { createReadStream, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { WORKERD_PATH } from "./workerd.ts";

const WRAPPER = "workerd-to-file.sh";
const STDOUT_FILE = "workerd-stdout.log";

export interface WorkerdStdout {
  /** The file workerd's stdout goes to. */
  path: string;
  /** Runs `start` (which must construct Miniflare and await its `ready`) with Miniflare pointed at the wrapper, then puts the setting back. */
  spawning<T>(start: () => Promise<T>): Promise<T>;
  /** Prints the file's warn and error lines, as Miniflare's structured-log handler would have, and how many lines it holds. */
  report(print: (entry: { level: string; message: string }) => void): Promise<number>;
}

/**
 * Prepares `dir` (the bench's own, git-ignored) for a workerd whose stdout is a file there, or
 * undefined where a shell script cannot stand in for workerd (Windows): Miniflare reads it then.
 */
export function workerdStdoutToFile(dir: string): WorkerdStdout | undefined {
  if (process.platform === "win32") return undefined;
  const wrapper = join(dir, WRAPPER);
  const path = join(dir, STDOUT_FILE);
  const quoted = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;
  // An override already set is the binary to run; the wrapper runs the `workerd` package's otherwise.
  const binary = process.env.MINIFLARE_WORKERD_PATH ?? WORKERD_PATH;
  // Truncated at each start: a full bench writes about a gigabyte, and only this run's lines matter.
  writeFileSync(wrapper, `#!/bin/sh\nexec ${quoted(binary)} "$@" >${quoted(path)}\n`, { mode: 0o755 });
  return {
    path,
    async spawning(start) {
      const before = process.env.MINIFLARE_WORKERD_PATH;
      // Two starts at once would restore each other's setting mid-spawn: no caller does, so refuse.
      if (before?.endsWith(WRAPPER) === true) throw new Error(`bench: a workerd is already starting through ${before}`);
      process.env.MINIFLARE_WORKERD_PATH = wrapper;
      try {
        return await start();
      } finally {
        if (before === undefined) delete process.env.MINIFLARE_WORKERD_PATH;
        else process.env.MINIFLARE_WORKERD_PATH = before;
      }
    },
    async report(print) {
      let lines = 0;
      const reader = createInterface({ input: createReadStream(path), crlfDelay: Number.POSITIVE_INFINITY });
      for await (const line of reader) {
        lines += 1;
        // Most lines are the Worker's own JSON log lines at level "log": skipped without parsing.
        if (!line.includes('"level":"warn"') && !line.includes('"level":"error"')) continue;
        try {
          print(JSON.parse(line) as { level: string; message: string });
        } catch {
          print({ level: "error", message: line });
        }
      }
      return lines;
    },
  };
}
