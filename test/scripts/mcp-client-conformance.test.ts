/**
 * The official MCP conformance suite's client scenarios (`conformance client`) against toolgate's
 * federation client: the suite starts each scenario's server and runs scripts/mcp/conformance-client.ts,
 * which drives the Worker's own client modules (src/mcp/client/, OAuth included) in Node. Every
 * scenario below must pass with no failing or warning check; the ones left out do not apply to a
 * federating gateway (docs/mcp.md, "Federating MCP servers").
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const CLI = createRequire(import.meta.url).resolve("@modelcontextprotocol/conformance/dist/index.js");
const HARNESS = new URL("../../scripts/mcp/conformance-client.ts", import.meta.url).pathname;

const SCENARIOS = [
  "initialize",
  "tools_call",
  "sse-retry",
  "auth/metadata-default",
  "auth/metadata-var1",
  "auth/metadata-var2",
  "auth/metadata-var3",
  "auth/basic-cimd",
  "auth/scope-from-www-authenticate",
  "auth/scope-from-scopes-supported",
  "auth/scope-omitted-when-undefined",
  "auth/scope-step-up",
  "auth/scope-retry-limit",
  "auth/token-endpoint-auth-basic",
  "auth/token-endpoint-auth-post",
  "auth/token-endpoint-auth-none",
  "auth/pre-registration",
  "auth/2025-03-26-oauth-metadata-backcompat",
  "auth/2025-03-26-oauth-endpoint-fallback",
  "auth/resource-mismatch",
  "auth/offline-access-scope",
  "auth/offline-access-not-supported",
];
/** Scenarios at once: each is a CLI, its servers and the harness, on a 2-core machine. */
const PARALLEL = 3;

interface Check {
  id: string;
  status: "SUCCESS" | "FAILURE" | "WARNING" | "INFO" | "SKIPPED";
  errorMessage?: string;
}

function runScenario(scenario: string, outDir: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const command = `${process.execPath} ${HARNESS}`;
    const child = spawn(process.execPath, [CLI, "client", "--command", command, "--scenario", scenario, "--timeout", "60000", "--output-dir", outDir], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), 90_000);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

/** checks.json of the one scenario the CLI ran into `outDir` (`auth/x` scenarios write under `auth/`). */
function readChecks(outDir: string): Check[] {
  const file = readdirSync(outDir, { recursive: true, encoding: "utf8" }).find((path) => path.endsWith("checks.json"));
  return file === undefined ? [] : (JSON.parse(readFileSync(join(outDir, file), "utf8")) as Check[]);
}

describe("the MCP conformance suite's client scenarios against toolgate's federation client", () => {
  const root = mkdtempSync(join(tmpdir(), "toolgate-client-conformance-"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("passes initialize, tools_call, sse-retry and every auth scenario that applies", async () => {
    const results = new Map<string, { code: number | null; output: string; checks: Check[] }>();
    const queue = [...SCENARIOS];
    await Promise.all(
      Array.from({ length: PARALLEL }, async () => {
        for (let scenario = queue.shift(); scenario !== undefined; scenario = queue.shift()) {
          const outDir = join(root, scenario.replaceAll("/", "_"));
          const run = await runScenario(scenario, outDir);
          results.set(scenario, { ...run, checks: readChecks(outDir) });
        }
      }),
    );
    const problems = [...results].flatMap(([scenario, { code, output, checks }]) => [
      ...(code === 0 ? [] : [`${scenario}: exit ${code}: ${output.slice(-600)}`]),
      ...checks
        .filter((check) => check.status === "FAILURE" || check.status === "WARNING")
        .map((check) => `${scenario}: ${check.status} ${check.id}: ${check.errorMessage ?? ""}`),
      ...(checks.some((check) => check.status === "SUCCESS") ? [] : [`${scenario}: no successful check`]),
    ]);
    expect(problems).toEqual([]);
    expect(
      results
        .get("sse-retry")
        ?.checks.filter((check) => check.status === "SUCCESS")
        .map((check) => check.id),
    ).toEqual(["client-sse-graceful-reconnect", "client-sse-retry-timing", "client-sse-last-event-id"]);
    expect(results.get("auth/basic-cimd")?.checks.find((check) => check.id === "cimd-client-id-used")?.status).toBe("SUCCESS");
  }, 600_000);
});
