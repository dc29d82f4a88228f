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
import { LEGACY_PATH, V2_MCP_HOST } from "../../support/v2-mcp-server.ts";
import { waitForAuditRows } from "../../support/wait-for-audit-rows.ts";
import { downstream, failedCallText, MODERN, textOf } from "./downstream-client.ts";
import { addServer, runCall } from "./helpers.ts";

const TOOL = "mcp__v2signin__needs_sign_in";
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
    const result = await client.callTool({ name: TOOL, arguments: { account: "ada" } });
    expect(textOf(result)).toBe("signed in as ada");
    expect(asked).toEqual([{ mode: "url", url: "https://signin.example/ada", message: expect.stringContaining('("Sign in to ada first.")') }]);
    await client.close();
  });

  it("reaches a 2025-era client as the same -32042 error, with the server's elicitationId; the client's retry goes through", async () => {
    const client = await downstream("legacy", BOTH_MODES);
    const error = await client.callTool({ name: TOOL, arguments: { account: "bea" } }).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(UrlElicitationRequiredError);
    const [elicitation] = (error as UrlElicitationRequiredError).elicitations;
    expect(elicitation).toMatchObject({ mode: "url", elicitationId: "sign-in-bea", url: "https://signin.example/bea" });
    await visit(elicitation?.url ?? "");
    expect(textOf(await client.callTool({ name: TOOL, arguments: { account: "bea" } }))).toBe("signed in as bea");
    await client.close();
  });

  it("a modern client that declared form mode only gets CONNECTION_REQUIRED's text with the link, and is asked nothing", async () => {
    asked.length = 0;
    const text = await failedCallText({ pin: MODERN }, FORM_ONLY, { elicit: visitAndAccept }, TOOL, { account: "cy" });
    expect(text).toContain("MCP server 'v2signin' needs a person to open https://signin.example/cy before the call can go on");
    expect(asked).toEqual([]);
  });

  it("over /v1 is CONNECTION_REQUIRED with the link and the server's elicitation id, and is audited so", async () => {
    const result = await runCall(TOOL, { account: "dee" });
    expect(result.error_code, result.message.content).toBe("CONNECTION_REQUIRED");
    const envelope = JSON.parse(result.message.content) as { connection?: Record<string, unknown>; retryable?: boolean };
    expect(envelope).toMatchObject({
      retryable: true,
      connection: { server: "v2signin", url: "https://signin.example/dee", expires_at: null, elicitation_id: "sign-in-dee" },
    });
    expect(await waitForAuditRows("tool = ? AND error_code = 'CONNECTION_REQUIRED'", [TOOL])).not.toEqual([]);
  });

  it("a link that is not https is not passed on: the call ends with the structured error", async () => {
    const result = await runCall(TOOL, { account: "eve", link: "http://signin.example/eve" });
    expect(result.error_code).toBe("EXECUTION_FAILED");
    expect(result.message.content).toContain("toolgate passes on only https links without a user:password@ part");
  });
});
