/**
 * The console's Connections page over many rows: everyone's connections, a page at a time, by
 * the API's keyset cursor. (Listing, revoking and the chat site's own page run end to end against
 * a real per-user server in test/mcp/federation/per-user-connections.test.ts.)
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { MCP_CONNECTIONS_TABLE } from "../../src/mcp/federation/connections/connection-store.ts";
import { signedInAs } from "./admin-client.ts";

describe("the console's Connections page", () => {
  it("pages through everyone's connections, each row once, and refuses a forged cursor with the API's reason", async () => {
    const { client } = await signedInAs("admin");
    // A principal sorting first, so this file's rows are the first pages whatever else the table holds.
    const principal = `!console-${crypto.randomUUID()}`;
    const sealed = JSON.stringify({ v: 1, iv: "AAAAAAAAAAAAAAAA", data: "AAAA" });
    const insert = env.DB.prepare(
      `INSERT INTO ${MCP_CONNECTIONS_TABLE} (principal, server, status, reason, grant_sealed, connected_at, updated_at) VALUES (?, ?, ?, ?, ?, 1, 1)`,
    );
    const servers = Array.from({ length: 60 }, (_, i) => `srv${String(i).padStart(2, "0")}`);
    await env.DB.batch(
      servers.map((server, i) =>
        i === 0
          ? insert.bind(principal, server, "needs_reconnect", "the upstream refused the refresh", sealed)
          : insert.bind(principal, server, "connected", null, sealed),
      ),
    );

    expect((await client.get("/admin/connections")).status).toBe(200);
    const first = client.lastPage;
    const shown = (html: string) => [...html.matchAll(/data-connection="[^"]*\/(srv\d+)"/g)].map((m) => m[1]);
    expect(shown(first)).toEqual(servers.slice(0, 50));
    expect(first).toContain("needs reconnect");
    expect(first).toContain("the upstream refused the refresh");
    const next = /href="(\/admin\/connections\?cursor=[^"]+)"/.exec(first)?.[1] ?? "";
    expect(next).not.toBe("");
    await client.get(next.replaceAll("&amp;", "&"));
    expect(shown(client.lastPage).slice(0, 10)).toEqual(servers.slice(50));

    expect((await client.get("/admin/connections?cursor=forged")).status).toBe(400);
    expect(client.lastPage).toContain("is not a cursor this list returned");
  });
});
