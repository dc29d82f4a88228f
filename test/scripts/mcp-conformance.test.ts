/**
 * The official MCP conformance suite (@modelcontextprotocol/conformance, `conformance server`)
 * against the real Worker in workerd: every scenario of its active suite must pass except the
 * ones listed in mcp-conformance-baseline.yml (none today).
 *
 * The suite cannot send an API key, so it talks to a loopback proxy that adds one (a key granted
 * the `conformance` toolset); /mcp itself still refuses requests without a key. Ports: Miniflare
 * 9230, the Worker's socket 9231, the proxy 9232.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AuthProxy, startAuthProxy } from "../../scripts/mcp/auth-proxy.ts";
import { createKey, type ServedToolgate, serveToolgate } from "../../scripts/mcp/serve-toolgate.ts";

const ROOT = new URL("../..", import.meta.url).pathname;
const BASELINE = new URL("./mcp-conformance-baseline.yml", import.meta.url).pathname;
const CLI = createRequire(import.meta.url).resolve("@modelcontextprotocol/conformance/dist/index.js");

/** Scenarios that must pass: every one of the active server suite (30), named so a scenario the suite stops running is noticed. */
const REQUIRED = [
  "server-initialize",
  "ping",
  "logging-set-level",
  "tools-list",
  "tools-call-simple-text",
  "tools-call-image",
  "tools-call-audio",
  "tools-call-embedded-resource",
  "tools-call-mixed-content",
  "tools-call-with-logging",
  "tools-call-error",
  "tools-call-with-progress",
  "dns-rebinding-protection",
  "tools-call-sampling",
  "tools-call-elicitation",
  "elicitation-sep1034-defaults",
  "elicitation-sep1330-enums",
  // Needs the Mcp-Session-Id initialize returns, sent back on concurrent POSTs.
  "server-sse-multiple-streams",
  // The fixture prompts and resources (tools/lib/conformance-prompts.ts).
  "prompts-list",
  "prompts-get-simple",
  "prompts-get-with-args",
  "prompts-get-embedded-resource",
  "prompts-get-with-image",
  "resources-list",
  "resources-read-text",
  "resources-read-binary",
  "resources-templates-read",
  // completion/complete (src/mcp/server/completion.ts) and session subscriptions (resource-subscriptions.ts).
  "completion-complete",
  "resources-subscribe",
  "resources-unsubscribe",
];

interface Check {
  id: string;
  status: "SUCCESS" | "FAILURE" | "WARNING" | "INFO" | "SKIPPED";
  errorMessage?: string;
}

/** Runs the CLI to completion (or kills it at `timeoutMs`); resolves with its exit code and output. */
function runSuite(url: string, outDir: string, timeoutMs: number, extra: readonly string[] = []): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, "server", "--url", url, "--expected-failures", BASELINE, "--output-dir", outDir, ...extra], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

/** checks.json of each scenario the CLI wrote, by scenario name. */
function readResults(outDir: string): Map<string, Check[]> {
  const results = new Map<string, Check[]>();
  for (const dir of readdirSync(outDir)) {
    const scenario = /^server-(.+)-\d{4}-\d{2}-\d{2}T.*$/.exec(dir)?.[1];
    if (scenario === undefined) continue;
    results.set(scenario, JSON.parse(readFileSync(join(outDir, dir, "checks.json"), "utf8")) as Check[]);
  }
  return results;
}

describe("the MCP conformance suite against /mcp/conformance", () => {
  let served: ServedToolgate;
  let proxy: AuthProxy;
  const outDir = mkdtempSync(join(tmpdir(), "toolgate-conformance-"));

  beforeAll(async () => {
    served = await serveToolgate(ROOT, { entryPort: 9230, directPort: 9231 });
    const key = await createKey(served, { name: "conformance", role: "agent", toolsets: ["conformance"] });
    proxy = await startAuthProxy(9232, served.url, key);
  }, 60_000);

  afterAll(async () => {
    await proxy?.close();
    await served?.dispose();
    rmSync(outDir, { recursive: true, force: true });
  });

  it("passes every scenario it runs", async () => {
    const { code, output } = await runSuite(new URL("/mcp/conformance", proxy.url).href, outDir, 100_000);
    const results = readResults(outDir);
    expect(results.size, `scenarios run: ${[...results.keys()].join(", ")}`).toBe(REQUIRED.length);
    const failed = [...results].flatMap(([scenario, checks]) =>
      checks.filter((check) => check.status === "FAILURE").map((check) => `${scenario}: ${check.id}: ${check.errorMessage ?? ""}`),
    );
    for (const scenario of REQUIRED) {
      expect(results.get(scenario), `${scenario} did not run`).toBeDefined();
      expect(
        failed.filter((line) => line.startsWith(`${scenario}:`)),
        `${scenario} failed`,
      ).toEqual([]);
    }
    // Exit 0 means: no failure outside the baseline, and no baseline entry that now passes.
    expect(code, `${failed.join("\n")}\n${output.slice(-3000)}`).toBe(0);
  }, 115_000);

  it("passes json-schema-2020-12, from the suite's pending set", async () => {
    const pendingDir = mkdtempSync(join(tmpdir(), "toolgate-conformance-pending-"));
    try {
      const { code, output } = await runSuite(new URL("/mcp/conformance", proxy.url).href, pendingDir, 30_000, ["--scenario", "json-schema-2020-12"]);
      const checks = readResults(pendingDir).get("json-schema-2020-12") ?? [];
      expect(checks.filter((check) => check.status === "SUCCESS").map((check) => check.id)).toEqual([
        "json-schema-2020-12-tool-found",
        "json-schema-2020-12-$schema",
        "json-schema-2020-12-$defs",
        "json-schema-2020-12-additionalProperties",
      ]);
      expect(code, output.slice(-2000)).toBe(0);
    } finally {
      rmSync(pendingDir, { recursive: true, force: true });
    }
  }, 40_000);

  it("still refuses the endpoint itself without a key", async () => {
    const response = await fetch(new URL("/mcp/conformance", served.url), {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
    });
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expect(((await response.json()) as { jsonrpc: string }).jsonrpc).toBe("2.0");
  });
});
