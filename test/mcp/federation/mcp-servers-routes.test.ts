/**
 * The admin API for remote MCP servers: who may use it, what it refuses (bad fields, secrets in
 * clear, private targets), and what each change does to the registry.
 */
import { afterEach, describe, expect, it } from "vitest";
import { registry } from "../../../src/registry/registry.ts";
import { FAKE_MCP_HOST } from "../../support/test-env.ts";
import { addServer, fedApi, fedEnv, listedTools, runCall } from "./helpers.ts";

const PINNED_URL = `http://${FAKE_MCP_HOST}/pinned`;
const script = (body: Record<string, unknown>) => fetch(`http://${FAKE_MCP_HOST}/control`, { method: "POST", body: JSON.stringify(body) });

afterEach(async () => {
  await script({ reset: true });
});

async function issuesOf(res: Response): Promise<{ path: string; message: string }[]> {
  expect(res.status).toBe(400);
  const body = (await res.json()) as { error_code: string; issues: { path: string; message: string }[] };
  expect(body.error_code).toBe("INVALID_REQUEST");
  return body.issues;
}

describe("access", () => {
  it("is for admins only", async () => {
    const created = await fedApi("/v1/keys", { body: { name: "fed-agent", role: "agent" } });
    const { key } = (await created.json()) as { key: string };
    const asAgent = { authorization: `Bearer ${key}` };
    for (const [method, path] of [
      ["GET", "/v1/mcp-servers"],
      ["POST", "/v1/mcp-servers"],
      ["GET", "/v1/mcp-servers/x"],
      ["DELETE", "/v1/mcp-servers/x"],
      ["POST", "/v1/mcp-servers/x/refresh"],
      ["POST", "/v1/mcp-servers/x/tools/y/accept"],
    ] as const) {
      const res = await fedApi(path, { method, headers: asAgent, ...(method === "POST" ? { body: {} } : {}) });
      expect(res.status, `${method} ${path}`).toBe(403);
    }
    expect((await fedApi("/v1/mcp-servers", { headers: { authorization: "" } })).status).toBe(401);
  });
});

describe("validation", () => {
  it("names each bad field", async () => {
    const issues = await issuesOf(await fedApi("/v1/mcp-servers", { body: { name: "no spaces", url: "ftp://example.com/mcp", timeout_ms: 5, pin: "maybe" } }));
    expect(issues.map((issue) => issue.path).sort()).toEqual(["name", "pin", "timeout_ms", "url"]);
  });

  it("refuses header values in clear: they must name a secret", async () => {
    const issues = await issuesOf(await fedApi("/v1/mcp-servers", { body: { name: "clear", url: PINNED_URL, headers: { Authorization: "Bearer abc" } } }));
    expect(issues[0]?.path).toBe("headers.Authorization");
    const reserved = await issuesOf(
      await fedApi("/v1/mcp-servers", { body: { name: "clear", url: PINNED_URL, headers: { "Mcp-Session-Id": { secret: "X" } } } }),
    );
    expect(reserved[0]?.message).toContain("may not set");
  });

  it("refuses private, loopback and link-local targets that OUTBOUND_ALLOW does not list", async () => {
    for (const url of [
      "http://10.1.2.3/mcp",
      "http://127.0.0.1:9249/mcp",
      "http://169.254.169.254/latest",
      "http://localhost:9240/mcp",
      "http://[::1]:9240/mcp",
    ]) {
      const issues = await issuesOf(await fedApi("/v1/mcp-servers", { body: { name: "ssrf", url } }));
      expect(issues[0], url).toMatchObject({ path: "url", message: expect.stringContaining("OUTBOUND_ALLOW") });
    }
    expect((await fedApi("/v1/mcp-servers/ssrf")).status).toBe(404);
  });
});

describe("lifecycle", () => {
  it("refuses a second server of the same name, and answers 404 for unknown ones", async () => {
    await addServer({ name: "twice", url: PINNED_URL, include: ["greet"] });
    expect((await fedApi("/v1/mcp-servers", { body: { name: "twice", url: PINNED_URL } })).status).toBe(409);
    for (const [method, path] of [
      ["GET", "/v1/mcp-servers/nope"],
      ["DELETE", "/v1/mcp-servers/nope"],
      ["POST", "/v1/mcp-servers/nope/refresh"],
      ["POST", "/v1/mcp-servers/nope/tools/greet/accept"],
      ["POST", "/v1/mcp-servers/twice/tools/nope/accept"],
    ] as const) {
      expect((await fedApi(path, { method })).status, `${method} ${path}`).toBe(404);
    }
    const put = await fedApi("/v1/mcp-servers/nope", { method: "PUT", body: { url: PINNED_URL } });
    expect(put.status).toBe(404);
    expect(await put.json()).toMatchObject({ error_code: "UNKNOWN_MCP_SERVER" });
  });

  it("replaces a configuration with PUT, disables a server's tools, and removes them with DELETE", async () => {
    await addServer({ name: "cycle", url: PINNED_URL, include: ["greet"] });
    expect(await listedTools("mcp-cycle")).toEqual(["mcp__cycle__greet"]);

    const replaced = await fedApi("/v1/mcp-servers/cycle", { method: "PUT", body: { url: PINNED_URL, include: ["fail", "whoami"] } });
    expect(replaced.status).toBe(200);
    expect(await listedTools("mcp-cycle")).toEqual(["mcp__cycle__fail", "mcp__cycle__whoami"]);
    expect(registry.has("mcp__cycle__greet")).toBe(false);

    await fedApi("/v1/mcp-servers/cycle", { method: "PUT", body: { url: PINNED_URL, include: ["fail"], enabled: false } });
    expect(registry.has("mcp__cycle__fail")).toBe(false);
    expect(await runCall("mcp__cycle__fail", {})).toMatchObject({ error_code: "UNKNOWN_TOOL" });
    expect(await (await fedApi("/v1/mcp-servers/cycle")).json()).toMatchObject({ enabled: false, tools: [] });

    await fedApi("/v1/mcp-servers/cycle", { method: "PUT", body: { url: PINNED_URL, include: ["fail"] } });
    expect(registry.has("mcp__cycle__fail")).toBe(true);
    expect((await fedApi("/v1/mcp-servers/cycle", { method: "DELETE" })).status).toBe(204);
    expect(registry.has("mcp__cycle__fail")).toBe(false);
    expect((await fedApi("/v1/mcp-servers/cycle")).status).toBe(404);
    const servers = (await (await fedApi("/v1/mcp-servers")).json()) as { servers: { name: string }[] };
    expect(servers.servers.map((server) => server.name)).not.toContain("cycle");
  });

  it("answers 502 when a refresh cannot reach the server, and keeps the tools it had", async () => {
    await addServer({ name: "unreachable", url: PINNED_URL, include: ["greet"] });
    await script({ down: true });
    const res = await fedApi("/v1/mcp-servers/unreachable/refresh", { method: "POST" });
    expect(res.status).toBe(502);
    expect(await res.json()).toMatchObject({ error_code: "MCP_SERVER_UNREACHABLE", error: expect.stringContaining("HTTP 503") });
    expect(registry.has("mcp__unreachable__greet")).toBe(true);
    expect(await (await fedApi("/v1/mcp-servers/unreachable")).json()).toMatchObject({ last_error: { message: expect.stringContaining("503") } });
  });
});

describe("header secrets", () => {
  it("sends the named secret's value and never shows it; without the secret the tools are unavailable", async () => {
    const status = await addServer({ name: "secretive", url: PINNED_URL, include: ["whoami"], headers: { Authorization: { secret: "FED_TEST_TOKEN" } } });
    expect(status).toMatchObject({ headers: { Authorization: { secret: "FED_TEST_TOKEN" } } });

    const missing = await runCall("mcp__secretive__whoami", {});
    expect(missing).toMatchObject({ error_code: "TOOL_UNAVAILABLE" });
    expect(JSON.parse(missing.message.content).error).toContain("FED_TEST_TOKEN");

    const withSecret = { ...fedEnv, FED_TEST_TOKEN: "Bearer s3cret-value" } as Env;
    expect(await runCall("mcp__secretive__whoami", {}, { env: withSecret })).toMatchObject({
      status: "ok",
      message: { content: "authorization: Bearer s3cret-value" },
    });
    expect(JSON.stringify(await (await fedApi("/v1/mcp-servers/secretive", { env: withSecret })).json())).not.toContain("s3cret");
  });
});
