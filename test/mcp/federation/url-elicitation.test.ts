/**
 * A federated server's URL-mode elicitation (the person is sent to a page), forwarded to the
 * client that made the call when it declared `elicitation.url`, and ended with toolgate's
 * structured error when it did not: the real v2 SDK server (2026-07-28, `input_required`) and the
 * real server-everything (2025, a request on the call's stream) as upstreams, the official v2
 * client downstream in both eras.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { EVERYTHING_PORT } from "../../support/test-env.ts";
import { V2_MCP_HOST } from "../../support/v2-mcp-server.ts";
import { downstream, type Era, failedCallText, MODERN, okAuditRows, recorded, textOf } from "./downstream-client.ts";
import { addServer } from "./helpers.ts";

const V2_LINK = "mcp__v2links__open_link";
const EVERYTHING_LINK = "mcp__everythinglinks__trigger-url-elicitation";
const BOTH_MODES = { elicitation: { form: {}, url: {} } };
const FORM_ONLY = { elicitation: { form: {} } };
const SIGN_IN = "https://signin.example/github";

const asked: Record<string, unknown>[] = [];
const visited = recorded(asked, { action: "accept" });
/** The error text of one call of `name` by a client of `era` declaring `capabilities` that must fail, with nothing asked of it. */
async function refusedUnasked(era: Era, capabilities: Record<string, unknown>, name: string, args: Record<string, unknown>): Promise<string> {
  asked.length = 0;
  const text = await failedCallText(era, capabilities, { elicit: visited }, name, args);
  expect(asked).toEqual([]);
  return text;
}

beforeAll(async () => {
  expect(await addServer({ name: "v2links", url: `http://${V2_MCP_HOST}/mcp`, include: ["open_link"] })).toMatchObject({ last_error: null });
  const everything = await addServer({ name: "everythinglinks", url: `http://127.0.0.1:${EVERYTHING_PORT}/mcp`, include: ["trigger-url-elicitation"] });
  // server-everything offers this tool only to clients that declared URL-mode elicitation: toolgate does now.
  expect(everything).toMatchObject({ last_error: null, tools: [{ name: EVERYTHING_LINK }] });
});

describe("a modern upstream's URL-mode elicitation (the v2 SDK server)", () => {
  it("reaches a modern client that declared url mode, in the revision's shape (no elicitationId), and the person's answer reaches the server", async () => {
    asked.length = 0;
    const client = await downstream({ pin: MODERN }, BOTH_MODES, { elicit: visited });
    const result = await client.callTool({ name: V2_LINK, arguments: { url: SIGN_IN } });
    expect(textOf(result)).toBe(`the person chose accept for ${SIGN_IN}`);
    expect(asked).toEqual([{ mode: "url", message: "Finish signing in on this page.", url: SIGN_IN }]);
    await client.close();
  });

  it("reaches a 2025-era client that declared url mode on the call's stream, with the elicitationId its revision requires", async () => {
    asked.length = 0;
    const client = await downstream("legacy", BOTH_MODES, { elicit: visited });
    const result = await client.callTool({ name: V2_LINK, arguments: { url: SIGN_IN } });
    expect(textOf(result)).toBe(`the person chose accept for ${SIGN_IN}`);
    expect(asked).toEqual([expect.objectContaining({ mode: "url", url: SIGN_IN, elicitationId: expect.any(String) })]);
    await client.close();
  });

  it("a modern client that declared form mode only is not asked: the call ends with the structured error", async () => {
    expect(await refusedUnasked({ pin: MODERN }, FORM_ONLY, V2_LINK, { url: SIGN_IN })).toContain(
      "MCP server 'v2links' needs input from the client during the call (elicitation/create (url mode)) that this client cannot give: it has no such capability",
    );
  });

  it("a 2025-era client that declared form mode only refuses on the stream, and the call ends with the same error", async () => {
    expect(await refusedUnasked("legacy", FORM_ONLY, V2_LINK, { url: SIGN_IN })).toContain(
      "MCP server 'v2links' needs input from the client during the call (elicitation/create (url mode)) that this client cannot give",
    );
  });

  it("a link that is not https is not passed on, whatever the client declared", async () => {
    expect(await refusedUnasked({ pin: MODERN }, BOTH_MODES, V2_LINK, { url: "http://signin.example/github" })).toContain(
      "toolgate passes on only https links without a user:password@ part, and it asked the person to open 'http://signin.example/github'",
    );
  });

  it("a link that hides its host behind user:password@ is not passed on", async () => {
    expect(await refusedUnasked("legacy", BOTH_MODES, V2_LINK, { url: "https://signin.example@elsewhere.example/" })).toContain(
      "it asked the person to open 'https://elsewhere.example/'",
    );
  });

  it("is audited as one call of the upstream's tool", async () => {
    expect(await okAuditRows(await downstream({ pin: MODERN }, BOTH_MODES, { elicit: visited }), V2_LINK, { url: `${SIGN_IN}?audited` })).not.toEqual([]);
  });
});

describe("a 2025 upstream's URL-mode elicitation (server-everything)", () => {
  it("reaches a 2025-era client with the server's own elicitationId", async () => {
    asked.length = 0;
    const client = await downstream("legacy", BOTH_MODES, { elicit: visited });
    const result = await client.callTool({ name: EVERYTHING_LINK, arguments: { url: SIGN_IN, elicitationId: "everything-1" } });
    expect(textOf(result)).toContain("User completed the URL elicitation flow.\nElicitation ID: everything-1");
    expect(asked).toEqual([expect.objectContaining({ mode: "url", url: SIGN_IN, elicitationId: "everything-1" })]);
    await client.close();
  });

  it("reaches a modern client; the retry asks the same question again, so its answer counts and reaches the server", async () => {
    asked.length = 0;
    const client = await downstream({ pin: MODERN }, BOTH_MODES, { elicit: visited });
    // No elicitationId: server-everything mints a new one each time it asks, which the modern shape leaves out.
    const result = await client.callTool({ name: EVERYTHING_LINK, arguments: { url: SIGN_IN } });
    expect(textOf(result)).toContain("User completed the URL elicitation flow.");
    expect(asked).toEqual([{ mode: "url", message: "Please open the link to complete this action.", url: SIGN_IN }]);
    await client.close();
  });

  it("a modern client that declared form mode only gets the structured error", async () => {
    expect(await refusedUnasked({ pin: MODERN }, FORM_ONLY, EVERYTHING_LINK, { url: SIGN_IN })).toContain(
      "MCP server 'everythinglinks' needs input from the client during the call (elicitation/create (url mode))",
    );
  });
});
