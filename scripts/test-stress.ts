/**
 * `npm run test:stress`: the test suite (or the files given) under deliberate CPU contention, one
 * busy process per core, so timing assumptions that hold on an idle machine are tested the way a
 * loaded CI runner or a shared 2-core box tests them. Each file with a failure runs again without
 * the contention; a test that fails and then passes is flaky. Exits 1 when any test is flaky or
 * failed both times. Not part of CI: it is slow on purpose.
 *
 * @example
 * ```sh
 * npm run test:stress                                         # the whole suite (slow)
 * npm run test:stress -- test/agent/chat-completions.test.ts  # some files
 * npm run test:stress -- --hogs=4 test/x.test.ts              # more busy processes than cores
 * ```
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { numberFlag } from "./number-flag.ts";
import { failedFiles, stressVerdict, type VitestReport } from "./test-stress/flaky-report.ts";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const files = process.argv.slice(2).filter((arg) => !arg.startsWith("--"));
const hogCount = numberFlag("hogs") ?? availableParallelism();

/**
 * One core kept busy. It spins in slices and exits once its parent is gone (its parent pid
 * changes when it is re-parented), so a hog outlives this script by at most a slice even when
 * the script is killed with SIGKILL and its cleanup never runs.
 */
const HOG =
  "const parent = process.ppid; for (;;) { const until = Date.now() + 100; while (Date.now() < until); if (process.ppid !== parent) process.exit(0); }";

const hogs: ChildProcess[] = [];
let vitest: ChildProcess | undefined;

/** Ends every process this script started, by its PID. Safe to call more than once. */
function stopChildren(): void {
  for (const hog of hogs.splice(0)) if (hog.exitCode === null && hog.pid !== undefined) process.kill(hog.pid, "SIGKILL");
  if (vitest?.exitCode === null && vitest.pid !== undefined) process.kill(vitest.pid, "SIGTERM");
}

for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
  process.on(signal, () => {
    stopChildren();
    process.exit(130);
  });
}
process.on("exit", stopChildren);

/** Runs vitest over `targets` (all files when empty) and returns its JSON report and exit code. */
async function runVitest(targets: readonly string[], outputFile: string): Promise<{ report: VitestReport; code: number | null }> {
  const child = spawn(
    process.execPath,
    [join(root, "node_modules/vitest/vitest.mjs"), "run", "--reporter=dot", "--reporter=json", `--outputFile=${outputFile}`, ...targets],
    {
      cwd: root,
      stdio: "inherit",
    },
  );
  vitest = child;
  const code = await new Promise<number | null>((done) => child.on("exit", (exitCode) => done(exitCode)));
  vitest = undefined;
  try {
    return { report: JSON.parse(readFileSync(outputFile, "utf8")) as VitestReport, code };
  } catch {
    throw new Error(`test:stress: vitest wrote no JSON report to ${outputFile} (exit ${String(code)}); see its output above`);
  }
}

const label = (file: string): string => relative(root, file);
const work = mkdtempSync(join(tmpdir(), "toolgate-stress-"));
let exitCode = 0;
try {
  for (let i = 0; i < hogCount; i++) hogs.push(spawn(process.execPath, ["-e", HOG], { stdio: "ignore" }));
  console.log(
    `test:stress: ${hogCount} busy process(es) (PIDs ${hogs.map((hog) => hog.pid).join(", ")}); running ${files.length === 0 ? "the whole suite" : files.join(" ")}`,
  );
  const first = await runVitest(files, join(work, "first.json"));
  stopChildren();
  const again = failedFiles(first.report);
  if (again.length === 0 && first.code !== 0) {
    console.log(`\ntest:stress: vitest exited with ${String(first.code)} and no failed test (an unhandled error? see above).`);
    exitCode = 1;
  } else if (again.length === 0) {
    console.log("\ntest:stress: every test passed under contention.");
  } else {
    console.log(`\ntest:stress: running again without contention: ${again.map(label).join(" ")}`);
    const second = await runVitest(again, join(work, "second.json"));
    const verdict = stressVerdict(first.report, second.report, label);
    for (const name of verdict.flaky) console.log(`FLAKY (failed under contention, passed again): ${name}`);
    for (const name of verdict.failedTwice) console.log(`FAILED both times: ${name}`);
    exitCode = verdict.flaky.length > 0 || verdict.failedTwice.length > 0 ? 1 : 0;
  }
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  exitCode = 1;
} finally {
  stopChildren();
  rmSync(work, { recursive: true, force: true });
}
process.exitCode = exitCode;
