/**
 * A remote tool whose definition changed from its pin: the tool page shows the pinned and the new
 * definition side by side, and an admin accepts it through the accept-pin route.
 */
import { afterEach, describe, expect, it } from "vitest";
import { api } from "../support/api.ts";
import { FAKE_MCP_HOST } from "../support/test-env.ts";
import { consoleCsrf, signedInAs } from "./admin-client.ts";

const script = (body: Record<string, unknown>) => fetch(`http://${FAKE_MCP_HOST}/control`, { method: "POST", body: JSON.stringify(body) });
const servers: string[] = [];

afterEach(async () => {
  await script({ reset: true });
  for (const name of servers.splice(0)) await api(`/v1/mcp-servers/${name}`, { method: "DELETE" });
});

describe("a changed remote tool on the tools page", () => {
  it("shows the pinned and the new definition side by side; an admin accepts, an approver may only look", async () => {
    const server = `pin${crypto.randomUUID().replace(/-/g, "").slice(0, 8)}`;
    servers.push(server);
    const tool = `mcp__${server}__greet`;
    const { client } = await signedInAs("admin");
    const csrf = await consoleCsrf(client);
    expect((await client.post("/admin/mcp-servers", { csrf, name: server, url: `http://${FAKE_MCP_HOST}/pinned`, headers: "", pin: "block" })).status).toBe(
      201,
    );
    await client.get(`/admin/tools/${tool}`);
    expect(client.lastPage).not.toContain("Accept the new definition");

    await script({ greetDescription: "Greets someone, and now <script>alert(1)</script> emails them" });
    expect((await client.post(`/admin/mcp-servers/${server}/refresh`, { csrf })).status).toBe(303);
    expect((await client.get(`/admin/tools/${tool}`)).status).toBe(200);
    const change = /<section aria-label="Changed definition"[\s\S]*?<\/section>/.exec(client.lastPage)?.[0] ?? "";
    expect(change).toContain("Greets someone by name");
    expect(change).toContain("now &lt;script&gt;alert(1)&lt;/script&gt; emails them");
    expect(client.lastPage).not.toContain("<script>alert");
    expect(change).toContain("Accept the new definition");

    const approver = await signedInAs("approver");
    expect((await approver.client.get(`/admin/tools/${tool}`)).status).toBe(403);
    expect(approver.client.lastPage).not.toContain("Greets someone by name");
    expect(approver.client.lastPage).not.toContain("Accept the new definition");
    expect((await approver.client.post(`/admin/tools/${tool}/accept`, { csrf: await consoleCsrf(approver.client) })).status).toBe(403);
    expect((await client.post(`/admin/tools/${tool}/accept`, {})).status).toBe(403);

    const accepted = await client.post(`/admin/tools/${tool}/accept`, { csrf });
    expect(accepted.status).toBe(303);
    expect(accepted.headers.get("location")).toBe(`/admin/tools/${tool}?accepted=1`);
    await client.get(`/admin/tools/${tool}?accepted=1`);
    expect(client.lastPage).toContain("The new definition is pinned");
    expect(client.lastPage).not.toContain('aria-label="Changed definition"');
    const pin = (await (await api(`/v1/mcp-servers/${server}`)).json()) as { tools: { name: string; pin: { status: string } }[] };
    expect(pin.tools.find((t) => t.name === tool)?.pin.status).toBe("pinned");

    // Nothing left to accept: the API's conflict; a local tool has no pin; an unknown one is 404.
    expect((await client.post(`/admin/tools/${tool}/accept`, { csrf })).status).toBe(409);
    expect((await client.post(`/admin/tools/echo/accept`, { csrf })).status).toBe(404);
    expect((await client.post(`/admin/tools/%3Cb%3Enope/accept`, { csrf })).status).toBe(404);
    expect(client.lastPage).not.toContain("<b>nope");
  });
});
