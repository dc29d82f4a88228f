/**
 * scripts/deploy.ts (`npm run deploy`): its dry run, its coverage of every binding in
 * wrangler.toml, and the real script run against a stand-in for the wrangler CLI
 * (support/fake-wrangler.ts: Cloudflare's CLI needs the network), to prove each step is safe to
 * repeat and an interrupted deploy finishes when run again.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { experimental_readRawConfig } from "wrangler";
import { type DeployStep, planDeploy, readDeployConfig } from "../../scripts/deploy/plan.ts";
import type { FakeAccount, FakeCall } from "./support/fake-wrangler.ts";

const root = fileURLToPath(new URL("../..", import.meta.url));
const configPath = join(root, "wrangler.toml");
const fakeWrangler = fileURLToPath(new URL("./support/fake-wrangler.ts", import.meta.url));
/** The workers.dev URL the stand-in's `deploy` prints. */
const WORKERS_DEV_URL = "https://toolgate.fake-account.workers.dev";

/** Top-level keys of wrangler.toml that configure the Worker and bind nothing. */
const SETTINGS = new Set([
  "name",
  "main",
  "compatibility_date",
  "compatibility_flags",
  "minify",
  "keep_names",
  "upload_source_maps",
  "alias",
  "build",
  "limits",
  "migrations",
  "triggers",
  "assets",
  "routes",
  "route",
  "workers_dev",
  "observability",
  "placement",
]);
/** Top-level keys that declare bindings, and the step kind that must make each binding exist. */
const BINDING_FIELDS: Record<string, DeployStep["kind"]> = {
  vars: "deploy",
  kv_namespaces: "deploy",
  r2_buckets: "deploy",
  durable_objects: "deploy",
  d1_databases: "migrate-d1",
  queues: "create-queue",
};
/** The step kind expected to cover each binding type wrangler derives from those fields. */
const KIND_OF_TYPE: Record<string, DeployStep["kind"]> = {
  plain_text: "deploy",
  json: "deploy",
  kv_namespace: "deploy",
  r2_bucket: "deploy",
  durable_object_namespace: "deploy",
  d1: "migrate-d1",
  queue: "create-queue",
};

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fresh fake account: a bin directory whose `wrangler` is the stand-in, and its state directory. */
function fakeAccount(): { bin: string; state: string } {
  const dir = mkdtempSync(join(tmpdir(), "toolgate-deploy-"));
  dirs.push(dir);
  const bin = join(dir, "bin");
  const state = join(dir, "state");
  mkdirSync(bin);
  mkdirSync(state);
  writeFileSync(join(bin, "wrangler"), `#!/bin/sh\nexec "${process.execPath}" "${fakeWrangler}" "$@"\n`);
  chmodSync(join(bin, "wrangler"), 0o755);
  return { bin, state };
}

function deploy(account: { bin: string; state: string }, args: string[] = [], env: Record<string, string> = {}) {
  const result = spawnSync(process.execPath, [join(root, "scripts/deploy.ts"), ...args], {
    cwd: root,
    encoding: "utf8",
    // Not CI unless a test says so, whatever runs this suite: CI changes the secret step.
    env: {
      ...process.env,
      CI: "",
      WORKERS_CI: "",
      ...env,
      PATH: `${account.bin}${delimiter}${process.env.PATH ?? ""}`,
      FAKE_WRANGLER_DIR: account.state,
      FAKE_WRANGLER_URL: WORKERS_DEV_URL,
    },
  });
  return { code: result.status, out: `${result.stdout}${result.stderr}` };
}

function calls(state: string): FakeCall[] {
  let text = "";
  try {
    text = readFileSync(join(state, "calls.jsonl"), "utf8");
  } catch {
    return [];
  }
  return text
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as FakeCall);
}

const commandLines = (list: FakeCall[]) => list.map((call) => call.argv.join(" "));

describe("npm run deploy", () => {
  it("prints every step's wrangler commands in order with --dry-run, runs none, and exits 0", { timeout: 30_000 }, () => {
    const account = fakeAccount();
    const { code, out } = deploy(account, ["--dry-run"]);
    expect(code).toBe(0);
    expect(calls(account.state)).toEqual([]);
    const commands = out.split("\n").flatMap((line) => /^\s+\$ wrangler (.*?)(?:\s+# when .*)?$/.exec(line)?.[1] ?? []);
    expect(commands).toEqual([
      "whoami --json",
      "login",
      ...["toolgate-audit", "toolgate-audit-dlq", "toolgate-hooks", "toolgate-hooks-dlq"].flatMap((queue) => [
        `queues create ${queue}`,
        `queues info ${queue}`,
      ]),
      "d1 create toolgate",
      "d1 info toolgate",
      "d1 migrations apply DB --remote",
      "deploy",
      "secret list",
      "secret put ADMIN_TOKEN",
    ]);
    expect(out).toContain("Print the URLs of /admin, /mcp, /docs and /chat");
  });

  it("covers every binding in wrangler.toml with the step that makes it exist", () => {
    const { rawConfig } = experimental_readRawConfig({ config: configPath });
    for (const key of Object.keys(rawConfig as object)) {
      if (!SETTINGS.has(key) && !(key in BINDING_FIELDS))
        throw new Error(`wrangler.toml has "${key}": if it binds something, scripts/deploy/plan.ts must create it; then list it in this test`);
    }
    const config = readDeployConfig(configPath);
    const steps = planDeploy(config);
    const coveredBy = (name: string) => steps.filter((step) => step.covers.includes(name)).map((step) => step.kind);

    const names = Object.entries(config.bindings);
    expect(names.length).toBeGreaterThan(20);
    for (const [name, binding] of names) {
      const kind = KIND_OF_TYPE[binding.type];
      if (kind === undefined) throw new Error(`binding ${name} is of a kind ("${binding.type}") this test does not know`);
      expect(coveredBy(name), `binding ${name} (${binding.type})`).toContain(kind);
    }
    // A D1 database is created before its migrations; every queue consumed or dead-lettered into is created too.
    expect(coveredBy("DB")).toEqual(["create-d1", "migrate-d1"]);
    for (const consumer of config.queues.consumers) {
      for (const queue of [consumer.queue, consumer.dead_letter_queue].filter((q) => q !== undefined))
        expect(coveredBy(`queue:${queue}`), queue).toEqual(["create-queue"]);
    }
    // The order that keeps new code off an old schema.
    const order = steps.map((step) => step.kind);
    expect(order.lastIndexOf("create-queue")).toBeLessThan(order.indexOf("deploy"));
    expect(order.indexOf("create-d1")).toBeLessThan(order.indexOf("migrate-d1"));
    expect(order.indexOf("migrate-d1")).toBeLessThan(order.indexOf("deploy"));
  });

  it("refuses a binding of a kind it does not know how to create, naming it", () => {
    const dir = mkdtempSync(join(tmpdir(), "toolgate-deploy-config-"));
    dirs.push(dir);
    const withVectorize = `${readFileSync(configPath, "utf8")}\n[[vectorize]]\nbinding = "VECTORS"\nindex_name = "toolgate-vectors"\n`;
    writeFileSync(join(dir, "wrangler.toml"), withVectorize);
    expect(() => planDeploy(readDeployConfig(join(dir, "wrangler.toml")))).toThrow(
      /binds VECTORS as "vectorize", which scripts\/deploy\/plan\.ts does not know/,
    );
  });

  it("deploys a fresh account in order, sets ADMIN_TOKEN once and prints it with the URLs", { timeout: 60_000 }, () => {
    const account = fakeAccount();
    const { code, out } = deploy(account);
    expect(code, out).toBe(0);
    const ran = commandLines(calls(account.state));
    expect(ran).toEqual([
      "whoami --json",
      "queues create toolgate-audit",
      "queues create toolgate-audit-dlq",
      "queues create toolgate-hooks",
      "queues create toolgate-hooks-dlq",
      "d1 create toolgate",
      "d1 migrations apply DB --remote",
      "deploy",
      "secret list",
      "secret put ADMIN_TOKEN",
    ]);
    const state = JSON.parse(readFileSync(join(account.state, "state.json"), "utf8")) as FakeAccount;
    const token = state.secrets.ADMIN_TOKEN ?? "";
    expect(token).toMatch(/^tg_[\w-]{43}$/);
    expect(out).toContain(token);
    for (const path of ["/admin", "/mcp", "/docs", "/chat"]) expect(out).toContain(`${WORKERS_DEV_URL}${path}`);
  });

  it("in CI, leaves a missing ADMIN_TOKEN unset rather than print a new one into the build log", { timeout: 60_000 }, () => {
    const account = fakeAccount();
    const { code, out } = deploy(account, [], { CI: "true" });
    expect(code, out).toBe(0);
    expect(commandLines(calls(account.state))).not.toContain("secret put ADMIN_TOKEN");
    expect(out).toContain("ADMIN_TOKEN is not set, and in CI");
    expect(out).toContain("npx wrangler secret put ADMIN_TOKEN");
  });

  it("finishes an interrupted deploy when run again, and a third run changes nothing", { timeout: 90_000 }, () => {
    const account = fakeAccount();
    const first = deploy(account, [], { FAKE_WRANGLER_FAIL_ONCE: "deploy" });
    expect(first.code).toBe(1);
    expect(first.out).toContain("step 8 (Deploy the Worker");
    expect(first.out).toContain("run `npm run deploy` again");
    expect(commandLines(calls(account.state))).not.toContain("secret list");

    const second = deploy(account, [], { FAKE_WRANGLER_FAIL_ONCE: "deploy" });
    expect(second.code, second.out).toBe(0);
    const rerun = commandLines(calls(account.state)).slice(8);
    // Everything the first run made is found, not made twice; the rest runs.
    for (const queue of ["toolgate-audit", "toolgate-audit-dlq", "toolgate-hooks", "toolgate-hooks-dlq"]) {
      expect(rerun).toContain(`queues create ${queue}`);
      expect(rerun).toContain(`queues info ${queue}`);
    }
    expect(rerun).toContain("d1 info toolgate");
    expect(rerun.slice(-4)).toEqual(["d1 migrations apply DB --remote", "deploy", "secret list", "secret put ADMIN_TOKEN"]);
    expect(second.out.match(/already exists/g)).toHaveLength(5);

    const before = calls(account.state).length;
    const third = deploy(account);
    expect(third.code, third.out).toBe(0);
    const last = calls(account.state).slice(before);
    expect(commandLines(last)).not.toContain("secret put ADMIN_TOKEN");
    expect(third.out).toContain("ADMIN_TOKEN is set; kept");
    const state = JSON.parse(readFileSync(join(account.state, "state.json"), "utf8")) as FakeAccount;
    expect(third.out).not.toContain(state.secrets.ADMIN_TOKEN);
    expect(state.queues).toHaveLength(4);
    expect(state.databases).toEqual(["toolgate"]);
  });
});
