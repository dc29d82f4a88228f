import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { MCP_CONNECTIONS_TABLE, openConnectionGrant, readConnection } from "../../../src/mcp/federation/connections/connection-store.ts";
import { TEST_MCP_TOKEN_KEY } from "../../support/test-env.ts";

describe("a stored connection whose sealed grant is corrupt", () => {
  it("reads as one that no longer opens, not as a throw", async () => {
    const columns = (await env.DB.prepare(`PRAGMA table_info(${MCP_CONNECTIONS_TABLE})`).all<{ name: string; notnull: number }>()).results;
    const values: Record<string, unknown> = {
      principal: "key-corrupt",
      server: "srv",
      grant_sealed: "{not json",
      status: "connected",
      reason: null,
      connected_at: 1,
      updated_at: 1,
    };
    const names = columns.map((column) => column.name).filter((name) => name in values);
    await env.DB.prepare(`INSERT INTO ${MCP_CONNECTIONS_TABLE} (${names.join(", ")}) VALUES (${names.map(() => "?").join(", ")})`)
      .bind(...names.map((name) => values[name]))
      .run();
    const stored = await readConnection(env.DB, "key-corrupt", "srv");
    expect(stored?.principal).toBe("key-corrupt");
    if (stored === undefined) return;
    expect(await openConnectionGrant(TEST_MCP_TOKEN_KEY, stored)).toBeUndefined();
  });
});
