/**
 * CONNECTION_REQUIRED in the modern era (MCP 2026-07-28): a `per_user` server's call from a
 * caller with no connection of its own is answered `input_required` with a URL-mode
 * elicitation of the one-time connect link, driven by the official v2 client, whose handler
 * here is the person: it opens the link, consents at the loopback upstream, and accepts. The
 * client's retry then goes through as that person's upstream account. A client that cannot open
 * URLs, or a person who declines, gets the structured result instead.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { describe, expect, it } from "vitest";
import { createApp } from "../../../src/http/app.ts";
import { csrfOf, PageClient } from "../../approvals-page/page-client.ts";
import { createKey } from "../../support/create-key.ts";
import { testParts } from "../../support/dispatch.ts";
import { MCP_BASE } from "../helpers.ts";
import { type AppFetch, addSignedInServer, type OAuthFixture, startOAuthFixture } from "./oauth-fixture.ts";

const app = createApp(testParts);
const MODERN = "2026-07-28";

type Fixture = OAuthFixture<{ received: { user: string; token: string }[] }>;

/** A per_user server on a fresh fixture, and a person: a key, and a browser signed in to the chat page with it. */
async function setUp(server: string): Promise<{ fixture: Fixture; serve: AppFetch; key: string; browser: PageClient }> {
  const fixture: Fixture = await startOAuthFixture();
  const serve: AppFetch = (input, init) => Promise.resolve(app.request(input, init, fixture.env));
  // On the MCP door's origin: connect links are made there, and the upstream knows toolgate's callback by it.
  await addSignedInServer(fixture, serve, { name: server, auth_mode: "per_user" }, MCP_BASE);
  const { key } = await createKey({ name: `elicit-${crypto.randomUUID()}`, role: "agent" });
  const browser = new PageClient(MCP_BASE, (page) => serve(page));
  await browser.get("/chat/sign-in");
  expect((await browser.post("/chat/sign-in", { key, csrf: csrfOf(browser.lastPage) })).status).toBe(303);
  return { fixture, serve, key, browser };
}

async function modernClient(serve: AppFetch, key: string, capabilities: Record<string, unknown>): Promise<Client> {
  const client = new Client({ name: "connection-elicitation-test", version: "1.0.0" }, { capabilities, versionNegotiation: { mode: { pin: MODERN } } });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${MCP_BASE}/mcp`), {
      fetch: (input, init) => serve(String(input), init),
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    }),
  );
  return client;
}

const textOf = (result: { content: unknown }): string => JSON.stringify(result.content);

describe("a call that needs the caller's own connection, in the modern era", () => {
  it("carries the connect link as a URL-mode elicitation; once the person has connected, the client's retry goes through as them", async () => {
    const { fixture, serve, key, browser } = await setUp("elicit");
    const client = await modernClient(serve, key, { elicitation: { url: {} } });
    const asked: { mode?: string; url?: string; message?: string }[] = [];
    client.setRequestHandler("elicitation/create", async (request) => {
      const params = request.params as { mode?: string; url: string; message: string };
      asked.push(params);
      // The person opens the link, the upstream signs them in as carol-upstream, and the browser lands on toolgate's callback.
      const opened = await browser.get(new URL(params.url).pathname);
      expect(opened.status, browser.lastPage).toBe(302);
      await fixture.control({ nextUser: "carol-upstream" });
      const approved = await fetch(opened.headers.get("location") ?? "", { redirect: "manual" });
      const callback = new URL(approved.headers.get("location") ?? "");
      expect((await browser.get(callback.pathname + callback.search)).status).toBe(200);
      return { action: "accept" };
    });

    const result = await client.callTool({ name: "mcp__elicit__whoami", arguments: {} });
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({ mode: "url", url: expect.stringMatching(/^http:\/\/localhost\/chat\/connect\/[\w-]{43}$/) });
    expect(asked[0]?.message).toContain("acts as you at MCP server 'elicit'");
    expect(result.isError).not.toBe(true);
    expect(textOf(result)).toContain("user carol-upstream");
    expect((await fixture.control()).received.map((r) => r.user)).toEqual(["carol-upstream"]);
    await client.close();
  });

  it.each([
    { case: "a person who declines, once: no second round", server: "elicitno", capabilities: { elicitation: { url: {} } }, asks: 1 },
    { case: "a client that declared no URL-mode elicitation, as before", server: "elicitform", capabilities: { elicitation: { form: {} } }, asks: 0 },
  ])("answers $case with the structured result, and the call never reaches the server", async ({ server, capabilities, asks }) => {
    const { fixture, serve, key } = await setUp(server);
    const client = await modernClient(serve, key, capabilities);
    let asked = 0;
    client.setRequestHandler("elicitation/create", async () => {
      asked++;
      return { action: "decline" };
    });
    const result = await client.callTool({ name: `mcp__${server}__whoami`, arguments: {} });
    expect(asked).toBe(asks);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("you have not connected your own account there yet");
    expect(textOf(result)).toMatch(/http:\/\/localhost\/chat\/connect\/[\w-]{43}/);
    expect((await fixture.control()).received).toEqual([]);
    await client.close();
  });
});
