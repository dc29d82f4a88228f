import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { registry } from "../../src/registry/registry.ts";
import { api } from "../support/api.ts";
import { createKey } from "../support/create-key.ts";
import { json } from "../support/json.ts";

interface ToolList {
  tools: { name: string }[];
  deferred?: number;
}

// Fifty tools standing in for a key's federated catalogue.
const MANY = Array.from({ length: 50 }, (_, i) => `defer_extra_${String(i).padStart(2, "0")}`);

beforeAll(() => {
  for (const name of MANY) {
    registry.register({
      name,
      toolset: "defer-many",
      schema: z.object({ id: z.string().describe("Which record.") }),
      description: `Looks up record kind ${name}.`,
      handler: () => "ok",
    });
  }
});
afterAll(() => {
  for (const name of MANY) registry.deregister(name);
});

describe("GET /v1/tools?defer=true", () => {
  it("lists only the core tools and tool_search, and says how many more the key may use", async () => {
    const full = await json<ToolList>(await api("/v1/tools?format=mcp"));
    const deferred = await json<ToolList>(await api("/v1/tools?format=mcp&defer=true"));
    expect(deferred.tools.map((t) => t.name)).toEqual(["current_time", "echo", "generate_lines", "tool_search"]);
    expect(full.tools.map((t) => t.name)).toEqual(expect.arrayContaining(MANY));
    expect(full).not.toHaveProperty("deferred");
    // Counted over what the key may use, available or not (github_repo is unavailable here).
    expect(deferred.deferred).toBeGreaterThanOrEqual(full.tools.length - deferred.tools.length);
  });

  it("keeps to what the key may use: no tool_search for a key that may not call it", async () => {
    const key = await createKey({ name: "defer-narrow", role: "agent", policy: { mode: "whitelist", patterns: ["echo", "defer_extra_*"] } });
    const body = await json<ToolList>(await api("/v1/tools?format=mcp&defer=true", { headers: { authorization: `Bearer ${key.key}` } }));
    expect(body.tools.map((t) => t.name)).toEqual(["echo"]);
    expect(body.deferred).toBe(MANY.length);
  });

  it("applies within a toolset", async () => {
    const body = await json<ToolList>(await api("/v1/tools?format=mcp&defer=true&toolset=defer-many"));
    expect(body).toMatchObject({ tools: [], deferred: MANY.length });
  });

  it("refuses a value other than true or false, naming the parameter", async () => {
    const response = await api("/v1/tools?defer=yes");
    expect(response.status).toBe(400);
    expect(await json(response)).toMatchObject({ error_code: "INVALID_REQUEST", issues: [{ path: "defer" }] });
  });
});
