/**
 * Runs the `wrangler` on PATH: `npm run deploy` puts the project's own first; a test puts a
 * stand-in first. The project's node_modules/.bin is appended as a fallback, so running
 * `node scripts/deploy.ts` directly still finds it.
 */
import { spawn } from "node:child_process";
import { delimiter, join } from "node:path";

/** What a wrangler run printed and how it exited. */
export interface WranglerResult {
  code: number;
  /** stdout alone, for commands whose answer is parsed (warnings go to stderr). */
  stdout: string;
  /** stdout and stderr as one text, in arrival order. */
  output: string;
}

/** How to run one command: `show` streams its output to ours; `input` goes to its stdin; `terminal` hands it ours. */
export interface WranglerOptions {
  show?: boolean;
  input?: string;
  terminal?: boolean;
}

/** Runs `wrangler <argv>`; resolves with its exit code and output (a failed spawn is code 127). */
export type Wrangler = (argv: readonly string[], options?: WranglerOptions) => Promise<WranglerResult>;

/** A Wrangler that runs the real executable, from `root` (where wrangler.toml is). */
export function wranglerCli(root: string): Wrangler {
  const env = { ...process.env, PATH: [process.env.PATH, join(root, "node_modules", ".bin")].filter(Boolean).join(delimiter) };
  return function wrangler(argv, { show = false, input, terminal = false } = {}) {
    return new Promise((resolve) => {
      // A terminal command (login) talks to the person; every other one is captured, which also
      // makes wrangler non-interactive, so no prompt can wait forever in the middle of a deploy.
      const child = spawn("wrangler", argv, { cwd: root, env, stdio: terminal ? "inherit" : [input === undefined ? "ignore" : "pipe", "pipe", "pipe"] });
      const chunks: string[] = [];
      const stdout: string[] = [];
      const collect = (target: NodeJS.WriteStream) => (chunk: Buffer) => {
        const text = chunk.toString("utf8");
        chunks.push(text);
        if (target === process.stdout) stdout.push(text);
        if (show) target.write(chunk);
      };
      child.stdout?.on("data", collect(process.stdout));
      child.stderr?.on("data", collect(process.stderr));
      if (input !== undefined) child.stdin?.end(input);
      child.on("error", (error) => resolve({ code: 127, stdout: "", output: `could not run wrangler: ${error.message}` }));
      child.on("close", (code) => resolve({ code: code ?? 1, stdout: stdout.join(""), output: chunks.join("") }));
    });
  };
}
