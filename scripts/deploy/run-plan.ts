/**
 * Runs a deploy plan (scripts/deploy/plan.ts) step by step with wrangler. Every step is safe to
 * repeat, so a deploy that stopped anywhere is finished by running it again: creating what
 * exists counts as done, migrations apply only what is missing, a set secret is kept.
 */
import { generateApiKey } from "../../src/auth/key-format.ts";
import type { DeployConfig, DeployStep, PlannedCommand } from "./plan.ts";
import type { Wrangler, WranglerResult } from "./wrangler-cli.ts";

/** A step that failed: what ran, what wrangler said, and what to do. */
export class StepFailed extends Error {
  override name = "StepFailed";
}

/** Where the run reports; a test passes its own to read what was printed. */
export interface RunContext {
  wrangler: Wrangler;
  config: DeployConfig;
  log: (line: string) => void;
  /** Whether a person is at a terminal, so `wrangler login` can ask them. */
  interactive: boolean;
  /**
   * Whether this runs in CI (Workers Builds behind a "Deploy to Cloudflare" button, say). There a
   * printed token would sit in build logs every account member can read, so a missing
   * ADMIN_TOKEN is reported, not generated.
   */
  ci: boolean;
  /** The new admin token's generator (256 random bits by default, the API keys' own shape). */
  generateToken?: () => string;
}

/** The routes the URLs are printed for: the pages a person opens and the MCP endpoint. */
export const PRINTED_PATHS = ["/admin", "/mcp", "/docs", "/chat"] as const;

/** Runs every step in order; throws StepFailed at the first that fails, naming its number. */
export async function runPlan(steps: readonly DeployStep[], context: RunContext): Promise<void> {
  let deployOutput = "";
  for (const [index, step] of steps.entries()) {
    context.log(`\n[${index + 1}/${steps.length}] ${step.title}`);
    try {
      const output = await runStep(step, context, deployOutput);
      if (step.kind === "deploy") deployOutput = output;
    } catch (error) {
      if (!(error instanceof StepFailed)) throw error;
      throw new StepFailed(
        `step ${index + 1} (${step.title}) failed: ${error.message}\nEvery step is safe to repeat: fix the cause and run \`npm run deploy\` again.`,
      );
    }
  }
}

/** The step's command at `index`; the plan is the one place commands are written. */
function command(step: DeployStep, index: number): PlannedCommand {
  const planned = step.commands[index];
  if (planned === undefined) throw new Error(`scripts/deploy/plan.ts: step "${step.title}" has no command ${index}`);
  return planned;
}

async function run(context: RunContext, planned: PlannedCommand, options: Parameters<Wrangler>[1] = {}): Promise<WranglerResult> {
  context.log(`  $ wrangler ${planned.argv.join(" ")}`);
  return context.wrangler(planned.argv, options);
}

function failed(planned: PlannedCommand, result: WranglerResult, hint = ""): StepFailed {
  return new StepFailed(`\`wrangler ${planned.argv.join(" ")}\` exited with ${result.code}:\n${result.output.trim()}${hint === "" ? "" : `\n${hint}`}`);
}

/** Runs one step; returns what its main command printed. */
async function runStep(step: DeployStep, context: RunContext, deployOutput: string): Promise<string> {
  switch (step.kind) {
    case "sign-in": {
      const whoami = await run(context, command(step, 0));
      if (whoami.code === 0) return whoami.output;
      if (!context.interactive)
        throw failed(
          command(step, 0),
          whoami,
          "Not signed in: run `npx wrangler login`, or set CLOUDFLARE_API_TOKEN (and CLOUDFLARE_ACCOUNT_ID) for a deploy without a terminal.",
        );
      const login = await run(context, command(step, 1), { terminal: true });
      if (login.code !== 0) throw failed(command(step, 1), login);
      return login.output;
    }
    case "create-queue":
    case "create-d1":
      return createOrFind(step, context);
    case "migrate-d1": {
      const result = await run(context, command(step, 0), { show: true });
      if (result.code !== 0) throw failed(command(step, 0), result);
      return result.output;
    }
    case "deploy": {
      const result = await run(context, command(step, 0), { show: true });
      // Provisioning makes KV namespaces before the upload; if the first upload then fails, the
      // next deploy finds no Worker to read their ids from and tries to create them again.
      const hint = /already exists/i.test(result.output)
        ? `If a KV namespace named ${provisionedKvNames(context.config).join(" or ")} is left from a first deploy that failed, it is empty: delete it (\`npx wrangler kv namespace delete --namespace-id <id>\`) and run again.`
        : "";
      if (result.code !== 0) throw failed(command(step, 0), result, hint);
      return result.output;
    }
    case "admin-secret":
      return ensureSecret(step, context);
    case "urls":
      printUrls(context, deployOutput);
      return "";
  }
}

/** The names wrangler gives the KV namespaces it provisions: `<worker>-<binding, kebab-case>`. */
function provisionedKvNames(config: DeployConfig): string[] {
  return Object.entries(config.bindings)
    .filter(([, binding]) => binding.type === "kv_namespace")
    .map(([name]) => `${config.name}-${name.toLowerCase().replaceAll("_", "-")}`);
}

/** Creates a queue or database; a create that fails counts as done when the resource is there. */
async function createOrFind(step: DeployStep, context: RunContext): Promise<string> {
  const created = await run(context, command(step, 0));
  if (created.code === 0) {
    context.log("  created");
    return created.output;
  }
  // Asking whether it exists, instead of matching the create's error text, holds whatever
  // wording the API uses for "already exists"; any other failure still stops the deploy.
  const found = await run(context, command(step, 1));
  if (found.code !== 0) throw failed(command(step, 0), created);
  context.log("  already exists");
  return found.output;
}

async function ensureSecret(step: Extract<DeployStep, { kind: "admin-secret" }>, context: RunContext): Promise<string> {
  const listed = await run(context, command(step, 0));
  if (listed.code !== 0) throw failed(command(step, 0), listed);
  let names: string[];
  try {
    // The list is the JSON array on stdout; anything around it (a banner) is not part of it.
    const json = listed.stdout.slice(listed.stdout.indexOf("["), listed.stdout.lastIndexOf("]") + 1);
    names = (JSON.parse(json) as { name: string }[]).map((secret) => secret.name);
  } catch {
    throw new StepFailed(`\`wrangler secret list\` printed something other than its JSON list:\n${listed.output.trim()}`);
  }
  if (names.includes(step.secret)) {
    context.log(`  ${step.secret} is set; kept`);
    return listed.output;
  }
  if (context.ci) {
    context.log(`  ${step.secret} is not set, and in CI a new one would be printed into the build log: set it from a terminal with`);
    context.log(`    openssl rand -hex 32 | npx wrangler secret put ${step.secret}    # keep the value: it is your first admin credential`);
    return listed.output;
  }
  const token = (context.generateToken ?? generateApiKey)();
  const put = await run(context, command(step, 1), { input: token });
  if (put.code !== 0) throw failed(command(step, 1), put);
  context.log(`  ${step.secret} was missing; set it to a new token, printed only now (store it in a password manager):`);
  context.log(`    ${token}`);
  return put.output;
}

/** The Worker's public origin: the workers.dev URL deploy printed, else a configured custom domain. */
export function publicOrigin(deployOutput: string, routes: DeployConfig["routes"]): string | undefined {
  const workersDev = /https:\/\/[\w.-]+\.workers\.dev/.exec(deployOutput)?.[0];
  if (workersDev !== undefined) return workersDev;
  const domain = routes.find((route) => typeof route === "object" && route.custom_domain === true);
  return typeof domain === "object" ? `https://${domain.pattern}` : undefined;
}

function printUrls(context: RunContext, deployOutput: string): void {
  const origin = publicOrigin(deployOutput, context.config.routes);
  if (origin === undefined) {
    context.log("  No workers.dev URL in the deploy's output and no custom domain in wrangler.toml: the Worker answers on its routes (docs/deploy.md).");
    return;
  }
  for (const path of PRINTED_PATHS) context.log(`  ${origin}${path}`);
}
