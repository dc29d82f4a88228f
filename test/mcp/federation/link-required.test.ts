/**
 * A federated server that answers a call with URLElicitationRequiredError (MCP 2025-11-25, code
 * -32042: a person must open its link before the call can go on), through each door: passed on
 * as that very error to a 2025-era client, turned into the revision's `input_required` round for
 * a modern client that declared URL mode (its retry calls the server again), and CONNECTION_REQUIRED
 * with the link for everyone else. The real v2 SDK server throws it on its 2025 lane (the revision
 * after it has no such error); the official v2 client is the
 * downstream; "visiting" the link is a request to the server's own finish page, as a browser's would be.
 */
import { UrlElicitationRequiredError } from "@modelcontextprotocol/client";
import { beforeAll, describe, expect, it } from "vitest";
import { TEST_ADMIN_TOKEN } from "../../support/test-env.ts";
import { LEGACY_PATH, V2_MCP_HOST } from "../../support/v2-mcp-server.ts";
import { waitForAuditRows } from "../../support/wait-for-audit-rows.ts";
import { app, downstream, failedCallText, MODERN, textOf } from "./downstream-client.ts";
import { addServer, fedEnv, runCall } from "./helpers.ts";

const TOOL = "mcp__v2signin__needs_sign_in";
/** The fixture remembers who signed in for as long as its process runs: each run signs in accounts of its own. */
const RUN = crypto.randomUUID().slice(0, 8);
const account = (name: string): string => `${name}-${RUN}`;
const BOTH_MODES = { elicitation: { form: {}, url: {} } };
const FORM_ONLY = { elicitation: { form: {} } };

/** The person opens the link and finishes there: the server's finish page marks the account signed in. */
async function visit(link: string): Promise<void> {
  const account = new URL(link).pathname.slice(1);
  const res = await fetch(`http://${V2_MCP_HOST}/finish-sign-in/${encodeURIComponent(account)}`);
  expect(res.status).toBe(204);
}

const asked: Record<string, unknown>[] = [];
async function visitAndAccept(params: Record<string, unknown>): Promise<{ action: "accept" }> {
  asked.push(params);
  await visit(String(params.url));
  return { action: "accept" };
}

beforeAll(async () => {
  expect(await addServer({ name: "v2signin", url: `http://${V2_MCP_HOST}${LEGACY_PATH}`, include: ["needs_sign_in"] })).toMatchObject({ last_error: null });
});

describe("an upstream's URLElicitationRequiredError", () => {
  it("reaches a modern client that declared url mode as an input_required round; once the person has finished, the retry goes through", async () => {
    asked.length = 0;
    const client = await downstream({ pin: MODERN }, BOTH_MODES, { elicit: visitAndAccept });
    const result = await client.callTool({ name: TOOL, arguments: { account: account("ada") } });
    expect(textOf(result)).toBe(`signed in as ${account("ada")}`);
    expect(asked).toEqual([
      { mode: "url", url: `https://signin.example/${account("ada")}`, message: expect.stringContaining(`("Sign in to ${account("ada")} first.")`) },
    ]);
    await client.close();
  });

  it("reaches a 2025-era client as the same -32042 error, with the server's elicitationId; the client's retry goes through", async () => {
    const client = await downstream("legacy", BOTH_MODES);
    const error = await client.callTool({ name: TOOL, arguments: { account: account("bea") } }).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(UrlElicitationRequiredError);
    const [elicitation] = (error as UrlElicitationRequiredError).elicitations;
    expect(elicitation).toMatchObject({ mode: "url", elicitationId: `sign-in-${account("bea")}`, url: `https://signin.example/${account("bea")}` });
    await visit(elicitation?.url ?? "");
    expect(textOf(await client.callTool({ name: TOOL, arguments: { account: account("bea") } }))).toBe(`signed in as ${account("bea")}`);
    await client.close();
  });

  it("a client of a revision before 2025-11-25, which has no such error, gets CONNECTION_REQUIRED's result with the link", async () => {
    // The v2 client pins only modern revisions: a 2025-06-18 request is sent as such a client would.
    const body = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: TOOL, arguments: { account: account("fay") } } };
    const headers = {
      authorization: `Bearer ${TEST_ADMIN_TOKEN}`,
      "content-type": "application/json",
      "mcp-protocol-version": "2025-06-18",
      accept: "application/json, text/event-stream",
    };
    const res = await app.request("http://localhost/mcp", { method: "POST", headers, body: JSON.stringify(body) }, fedEnv);
    const text = await res.text();
    const json = text.startsWith("{")
      ? text
      : (text
          .match(/^data: (.*)$/gm)
          ?.pop()
          ?.slice(6) ?? "{}");
    const answer = JSON.parse(json) as { result?: { isError?: boolean; content?: { text?: string }[] }; error?: unknown };
    expect(answer.error).toBeUndefined();
    expect(answer.result?.isError).toBe(true);
    expect(textOf(answer.result ?? {})).toContain(
      `MCP server 'v2signin' needs a person to open https://signin.example/${account("fay")} before the call can go on`,
    );
  });

  it("a modern client that declared form mode only gets CONNECTION_REQUIRED's text with the link, and is asked nothing", async () => {
    asked.length = 0;
    const text = await failedCallText({ pin: MODERN }, FORM_ONLY, { elicit: visitAndAccept }, TOOL, { account: account("cy") });
    expect(text).toContain(`MCP server 'v2signin' needs a person to open https://signin.example/${account("cy")} before the call can go on`);
    expect(asked).toEqual([]);
  });

  it("over /v1 is CONNECTION_REQUIRED with the link and the server's elicitation id, and is audited so", async () => {
    const result = await runCall(TOOL, { account: account("dee") });
    expect(result.error_code, result.message.content).toBe("CONNECTION_REQUIRED");
    const envelope = JSON.parse(result.message.content) as { connection?: Record<string, unknown>; retryable?: boolean };
    expect(envelope).toMatchObject({
      retryable: true,
      connection: { server: "v2signin", url: `https://signin.example/${account("dee")}`, expires_at: null, elicitation_id: `sign-in-${account("dee")}` },
    });
    expect(await waitForAuditRows("tool = ? AND error_code = 'CONNECTION_REQUIRED' AND arguments LIKE ?", [TOOL, `%${account("dee")}%`])).not.toEqual([]);
  });

  it("a link that is not https is not passed on: the call ends with the structured error", async () => {
    const result = await runCall(TOOL, { account: account("eve"), link: `http://signin.example/${account("eve")}` });
    expect(result.error_code).toBe("EXECUTION_FAILED");
    expect(result.message.content).toContain("toolgate passes on only https links without a user:password@ part");
  });
});
