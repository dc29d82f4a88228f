/**
 * Servers from the `MCP_SERVERS` var: validated with the API's own schema when the
 * configuration loads (a clear error naming the server and field), federated like API-added
 * ones, and read-only through the API.
 */
import { afterAll, describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../../src/config/config.ts";
import { federation } from "../../../src/mcp/federation/federation.ts";
import { FAKE_MCP_HOST } from "../../support/test-env.ts";
import { fedApi, fedEnv, listedTools } from "./helpers.ts";

const withServers = (value: string) => ({ ...fedEnv, MCP_SERVERS: value }) as Env;

afterAll(() => {
  // The var exists only in this file's env: forget what it registered.
  federation.reset();
});

describe("MCP_SERVERS", () => {
  it("defaults to none, with a five-minute tool-list TTL", () => {
    expect(loadConfig(fedEnv)).toMatchObject({ mcpServers: [], mcpToolsTtlSeconds: 300 });
  });

  it.each([
    ["not JSON", "{", "MCP_SERVERS must be a JSON array"],
    ["a bad field", JSON.stringify([{ name: "ok", url: "gopher://x" }]), "MCP_SERVERS [0.url]"],
    [
      "a secret in clear",
      JSON.stringify([{ name: "ok", url: "https://mcp.example.com/", headers: { Authorization: "Bearer x" } }]),
      "MCP_SERVERS [0.headers.Authorization]",
    ],
    [
      "duplicate names",
      JSON.stringify([
        { name: "a", url: "https://a.example.com/" },
        { name: "a", url: "https://b.example.com/" },
      ]),
      "server names must be unique",
    ],
  ])("fails loading with a clear message for %s", (_case, value, message) => {
    expect(() => loadConfig(withServers(value))).toThrow(ConfigError);
    expect(() => loadConfig(withServers(value))).toThrow(message);
  });

  it("federates configured servers, which the API shows but will not change or delete", async () => {
    const env = withServers(JSON.stringify([{ name: "deployed", url: `http://${FAKE_MCP_HOST}/pinned`, include: ["greet"], timeout_ms: 5000 }]));
    const status = await fedApi("/v1/mcp-servers/deployed", { env });
    expect(await status.json()).toMatchObject({ name: "deployed", source: "config", timeout_ms: 5000, tools: [{ name: "mcp__deployed__greet" }] });
    expect(await listedTools("mcp-deployed")).toEqual(["mcp__deployed__greet"]);
    expect((await fedApi("/v1/mcp-servers/deployed", { method: "DELETE", env })).status).toBe(409);
    expect((await fedApi("/v1/mcp-servers/deployed", { method: "PUT", body: { url: `http://${FAKE_MCP_HOST}/names` }, env })).status).toBe(409);
    expect((await fedApi("/v1/mcp-servers", { body: { name: "deployed", url: `http://${FAKE_MCP_HOST}/names` }, env })).status).toBe(409);
  });
});
