/**
 * `npm run deploy`: one command that takes toolgate from a fresh Cloudflare account (or any
 * half-finished earlier run) to a deployed Worker: queues and D1 databases created, migrations
 * applied before the code serves, the Worker deployed (wrangler provisions its KV namespaces and
 * R2 buckets), an ADMIN_TOKEN set if missing, and the URLs printed. docs/deploy.md explains
 * each step and its order.
 *
 * @example
 * ```sh
 * npm run deploy                 # run it (signs in first when needed)
 * npm run deploy -- --dry-run    # print every step and wrangler command; runs nothing, no account
 * ```
 */
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { formatPlan, planDeploy, readDeployConfig } from "./deploy/plan.ts";
import { runPlan, StepFailed } from "./deploy/run-plan.ts";
import { wranglerCli } from "./deploy/wrangler-cli.ts";

const USAGE = "usage: npm run deploy [-- --dry-run]";

/** The usual CI markers: CI (most CI services set it) and WORKERS_CI (Workers Builds). */
function isCi(env: NodeJS.ProcessEnv): boolean {
  return ["CI", "WORKERS_CI"].some((name) => env[name] !== undefined && env[name] !== "" && env[name] !== "false" && env[name] !== "0");
}

async function main(args: readonly string[]): Promise<number> {
  const unknown = args.filter((arg) => arg !== "--dry-run");
  if (unknown.length > 0) {
    console.error(`deploy: unknown arguments ${JSON.stringify(unknown)}; ${USAGE}`);
    return 2;
  }
  const root = fileURLToPath(new URL("..", import.meta.url));
  const config = readDeployConfig(join(root, "wrangler.toml"));
  const steps = planDeploy(config);
  if (args.includes("--dry-run")) {
    console.log(formatPlan(steps));
    return 0;
  }
  try {
    const ci = isCi(process.env);
    await runPlan(steps, { wrangler: wranglerCli(root), config, log: (line) => console.log(line), interactive: process.stdin.isTTY === true && !ci, ci });
  } catch (error) {
    if (!(error instanceof StepFailed)) throw error;
    console.error(`\ndeploy: ${error.message}`);
    return 1;
  }
  console.log("\ndeploy: done.");
  return 0;
}

if (import.meta.main) process.exitCode = await main(process.argv.slice(2));
