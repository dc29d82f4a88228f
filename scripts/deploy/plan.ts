/**
 * The deploy plan: from the Worker's config (wrangler.toml, read by wrangler itself), the ordered
 * steps `npm run deploy` runs, each with its exact wrangler commands and the bindings it makes
 * exist. Pure: the dry run prints it, scripts/deploy/run-plan.ts runs it, and the test checks
 * that every binding in the config is covered by a step.
 *
 * The order is the point: queues and D1 databases first (wrangler deploy refuses a consumer of
 * a queue that does not exist, and does not create dead-letter queues), then the D1 migrations,
 * then the code, so a new version never serves against an old schema. KV namespaces, R2 buckets
 * and Durable Object classes are made by `wrangler deploy` itself, from names alone.
 */
import { unstable_convertConfigBindingsToStartWorkerBindings, unstable_readConfig } from "wrangler";

/** The admin secret the deploy sets when it is missing: the first admin credential. */
export const ADMIN_SECRET = "ADMIN_TOKEN";

/** A command of a step: `argv` after `wrangler`; `when` says when it runs, if not always. */
export interface PlannedCommand {
  argv: readonly string[];
  when?: string;
}

/** What every step has: a title, its commands in order, why a re-run is safe, what it covers. */
interface StepBase {
  title: string;
  commands: readonly PlannedCommand[];
  /** Why running it again, after it ran or after it stopped halfway, is harmless. */
  rerun: string;
  /** The binding names, and `queue:<name>` for every queue, that this step makes exist. */
  covers: readonly string[];
}

/** One step of the deploy; `kind` picks how scripts/deploy/run-plan.ts runs its commands. */
export type DeployStep =
  | (StepBase & { kind: "sign-in" })
  | (StepBase & { kind: "create-queue"; queue: string })
  | (StepBase & { kind: "create-d1"; database: string })
  | (StepBase & { kind: "migrate-d1"; binding: string })
  | (StepBase & { kind: "deploy" })
  | (StepBase & { kind: "admin-secret"; secret: string })
  | (StepBase & { kind: "urls" });

/** The parts of wrangler's config the plan reads (wrangler's declared type is too loose to use). */
export interface DeployConfig {
  name: string;
  /** Every binding, as wrangler itself derives them from the config: name → kind and fields. */
  bindings: Record<string, { type: string; database_name?: string; queue_name?: string }>;
  queues: {
    producers: readonly { binding: string; queue: string }[];
    consumers: readonly { queue: string; dead_letter_queue?: string }[];
  };
  d1Databases: readonly { binding: string; database_name?: string }[];
  /** `routes` (and `route`) as configured; a custom domain is `{pattern, custom_domain: true}`. */
  routes: readonly (string | { pattern: string; custom_domain?: boolean })[];
}

/** Reads `configPath` with wrangler's own parser and validation, exactly as `wrangler deploy` would. */
export function readDeployConfig(configPath: string): DeployConfig {
  const config = unstable_readConfig({ config: configPath });
  const bindings: DeployConfig["bindings"] = unstable_convertConfigBindingsToStartWorkerBindings(config) ?? {};
  const routes: DeployConfig["routes"] = config.routes ?? (config.route === undefined ? [] : [config.route]);
  return {
    name: config.name,
    bindings,
    queues: { producers: config.queues.producers ?? [], consumers: config.queues.consumers ?? [] },
    d1Databases: config.d1_databases,
    routes,
  };
}

/**
 * Binding kinds `wrangler deploy` makes exist from the config alone: KV and R2 (provisioned by
 * name, its ids kept with the deployed Worker's bindings), Durable Object classes (created by
 * the config's `[[migrations]]` on upload), and vars (uploaded with the code).
 */
const MADE_BY_DEPLOY = new Set(["kv_namespace", "r2_bucket", "durable_object_namespace", "plain_text", "json"]);

/**
 * The steps, in order. Throws on a binding kind this plan does not know, naming the binding, so
 * a new kind of binding cannot be deployed without deciding which step creates it.
 */
export function planDeploy(config: DeployConfig): DeployStep[] {
  const queues = new Set<string>();
  const madeByDeploy: string[] = [];
  for (const [name, binding] of Object.entries(config.bindings)) {
    if (binding.type === "queue" && binding.queue_name !== undefined) queues.add(binding.queue_name);
    else if (MADE_BY_DEPLOY.has(binding.type)) madeByDeploy.push(name);
    else if (binding.type !== "d1")
      throw new Error(
        `wrangler.toml binds ${name} as "${binding.type}", which scripts/deploy/plan.ts does not know how to create. ` +
          `Add a step that creates it, or add "${binding.type}" to MADE_BY_DEPLOY if wrangler deploy provisions it.`,
      );
  }
  for (const consumer of config.queues.consumers) {
    queues.add(consumer.queue);
    if (consumer.dead_letter_queue !== undefined) queues.add(consumer.dead_letter_queue);
  }
  const producerOf = (queue: string) => config.queues.producers.filter((p) => p.queue === queue).map((p) => p.binding);

  const steps: DeployStep[] = [
    {
      kind: "sign-in",
      title: "Check the Cloudflare sign-in",
      commands: [{ argv: ["whoami", "--json"] }, { argv: ["login"], when: "not signed in, and this is a terminal" }],
      rerun: "reads only; signs in only when not signed in",
      covers: [],
    },
  ];
  for (const queue of queues) {
    steps.push({
      kind: "create-queue",
      queue,
      title: `Create the queue ${queue}`,
      commands: [{ argv: ["queues", "create", queue] }, { argv: ["queues", "info", queue], when: "the create failed: it exists if this succeeds" }],
      rerun: "a queue that already exists is left as it is",
      covers: [`queue:${queue}`, ...producerOf(queue)],
    });
  }
  for (const db of config.d1Databases) {
    // A D1 binding without database_name would be provisioned by wrangler deploy under a
    // generated name, after the code it serves: refuse it rather than serve an empty schema.
    if (db.database_name === undefined)
      throw new Error(`wrangler.toml's D1 binding ${db.binding} has no database_name; name it, so its migrations can run before the code`);
    steps.push({
      kind: "create-d1",
      database: db.database_name,
      title: `Create the D1 database ${db.database_name}`,
      commands: [
        { argv: ["d1", "create", db.database_name] },
        { argv: ["d1", "info", db.database_name], when: "the create failed: it exists if this succeeds" },
      ],
      rerun: "a database that already exists is left as it is",
      covers: [db.binding],
    });
    steps.push({
      kind: "migrate-d1",
      binding: db.binding,
      title: `Apply the D1 migrations to ${db.binding} (${db.database_name}), before the new code serves`,
      commands: [{ argv: ["d1", "migrations", "apply", db.binding, "--remote"] }],
      rerun: "applies only the migrations its d1_migrations table has not recorded",
      covers: [db.binding],
    });
  }
  steps.push(
    {
      kind: "deploy",
      title: "Deploy the Worker; wrangler creates the KV namespaces and R2 buckets it binds, and the Durable Object classes",
      commands: [{ argv: ["deploy"] }],
      rerun: "uploads the same code again; resources it created are found through the deployed Worker's bindings",
      covers: madeByDeploy,
    },
    {
      kind: "admin-secret",
      secret: ADMIN_SECRET,
      title: `Set the ${ADMIN_SECRET} secret if it is missing (a new one is printed once)`,
      commands: [{ argv: ["secret", "list"] }, { argv: ["secret", "put", ADMIN_SECRET], when: `${ADMIN_SECRET} is not in the list; the value goes on stdin` }],
      rerun: "an existing secret is never replaced",
      covers: [],
    },
    { kind: "urls", title: "Print the URLs of /admin, /mcp, /docs and /chat", commands: [], rerun: "prints only", covers: [] },
  );
  return steps;
}

/** The plan as the dry run prints it: numbered steps, each command as it would be typed. */
export function formatPlan(steps: readonly DeployStep[]): string {
  const lines = ["toolgate deploy plan (dry run: nothing is run, no account is needed)", ""];
  steps.forEach((step, index) => {
    lines.push(`${index + 1}. ${step.title}`);
    for (const command of step.commands) lines.push(`   $ wrangler ${command.argv.join(" ")}${command.when === undefined ? "" : `    # when ${command.when}`}`);
    lines.push(`   re-run: ${step.rerun}`);
  });
  return lines.join("\n");
}
