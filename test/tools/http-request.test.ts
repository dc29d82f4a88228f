/**
 * http_request through POST /v1/tool-calls with created keys, against the echo route of
 * test/support/web-stub.ts: GET runs at once, any other method waits for a person's approval and
 * runs exactly as approved; secrets in headers reach only their granted hosts and never come
 * back to the model, even from a server that echoes them.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/http/app.ts";
import { resolveToolset } from "../../src/toolsets/resolve.ts";
import { type CallResult, callTools, decide, only } from "../approvals/support.ts";
import { createKey } from "../support/create-key.ts";
import { testParts } from "../support/dispatch.ts";
import { TEST_ADMIN_TOKEN } from "../support/test-env.ts";
import { openaiCall } from "../support/tool-calls.ts";
import { waitForAuditRows } from "../support/wait-for-audit-rows.ts";
import { MIRROR_HOST, WEB_HOST } from "../support/web-stub.ts";

const echoUrl = `http://${WEB_HOST}/echo`;
const SECRET_VALUE = "sk-live-very-secret-0123456789";

interface Answer {
  status: number;
  url: string;
  headers: Record<string, string>;
  body: string;
}
interface Echo {
  method: string;
  headers: Record<string, string>;
  body: string;
}

const answerOf = (result: CallResult) => JSON.parse(result.message.content) as Answer;
const echoOf = (result: CallResult) => JSON.parse(answerOf(result).body) as Echo;

/** The Worker's app with a secret and its grant configured, as wrangler would give them. */
const app = createApp(testParts);
const withSecret = { ...env, HTTP_REQUEST_SECRETS: `TEST_API_KEY@${WEB_HOST}`, TEST_API_KEY: SECRET_VALUE } as Env;

async function callWithSecret(args: Record<string, unknown>, bindings: Env = withSecret): Promise<CallResult> {
  const send = (path: string, body: unknown, token = TEST_ADMIN_TOKEN) =>
    app.request(
      `https://toolgate.test${path}`,
      { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body: JSON.stringify(body) },
      bindings,
    );
  const created = await send("/v1/keys", { name: `hr-${crypto.randomUUID()}`, role: "agent", toolsets: ["http"] });
  const { key } = (await created.json()) as { key: string };
  const res = await send("/v1/tool-calls", { tool_calls: [openaiCall("c1", "http_request", args)] }, key);
  expect(res.status).toBe(200);
  return ((await res.json()) as { results: CallResult[] }).results[0] as CallResult;
}

describe("http_request", () => {
  it("sends a GET at once and returns status, headers and body", async () => {
    const agent = await createKey({ name: "hr-get", role: "agent", toolsets: ["http"] });
    const result = only(await callTools(agent, "hr-get", [openaiCall("c1", "http_request", { url: `${echoUrl}?q=1`, headers: { "x-trace": "abc" } })]));
    expect(result.status).toBe("ok");
    expect(answerOf(result)).toMatchObject({ status: 200, url: `${echoUrl}?q=1`, headers: { "content-type": "application/json", "x-echo-x-trace": "abc" } });
    expect(echoOf(result)).toMatchObject({ method: "GET", headers: { "x-trace": "abc" } });
  });

  it("holds a POST for a person's approval, then sends the approved body", async () => {
    const agent = await createKey({ name: "hr-post", role: "agent", toolsets: ["http"] });
    const approver = await createKey({ name: "hr-post-approver", role: "approver" });
    const args = { method: "POST", url: echoUrl, body: { order: 42 } };
    const held = only(await callTools(agent, "hr-post", [openaiCall("p1", "http_request", args)]));
    expect(held).toMatchObject({ status: "pending_approval", error_code: "APPROVAL_REQUIRED" });

    const decided = await decide(approver, held.approval?.id ?? "", { decision: "approve", scope: "once" });
    expect(await decided.json()).toMatchObject({ status: "approved", result: { status: "ok" } });
    const again = only(await callTools(agent, "hr-post", [openaiCall("p1", "http_request", args)]));
    expect(echoOf(again)).toMatchObject({ method: "POST", body: '{"order":42}', headers: { "content-type": "application/json" } });
  });

  it("holds DELETE and HEAD too, while GET needs no approval", async () => {
    const agent = await createKey({ name: "hr-methods", role: "agent", toolsets: ["http"] });
    const batch = await callTools(agent, "hr-methods", [
      openaiCall("m1", "http_request", { method: "DELETE", url: echoUrl }),
      openaiCall("m2", "http_request", { method: "HEAD", url: echoUrl }),
      openaiCall("m3", "http_request", { method: "GET", url: echoUrl }),
    ]);
    expect(batch.results.map((r) => r.status)).toEqual(["pending_approval", "pending_approval", "ok"]);
  });

  it("is in the agent preset but not in safe, which the reading web tools are in", async () => {
    expect(await resolveToolset("agent")).toEqual(expect.arrayContaining(["http_request", "web_extract", "web_fetch", "web_search"]));
    const safe = await resolveToolset("safe");
    expect(safe).toEqual(expect.arrayContaining(["web_extract", "web_fetch", "web_search"]));
    expect(safe).not.toContain("http_request");
  });

  it("refuses a body on a GET, naming the field", async () => {
    const agent = await createKey({ name: "hr-body", role: "agent", toolsets: ["http"] });
    const result = only(await callTools(agent, "hr-body", [openaiCall("c1", "http_request", { url: echoUrl, body: "x" })]));
    expect(JSON.parse(result.message.content)).toMatchObject({ error_code: "INVALID_ARGUMENTS", issues: [{ path: "body" }] });
  });

  it("refuses private addresses, and a GET's redirect to one, before sending anything there", async () => {
    const agent = await createKey({ name: "hr-ssrf", role: "agent", toolsets: ["http"] });
    const direct = only(await callTools(agent, "hr-ssrf", [openaiCall("c1", "http_request", { url: "http://169.254.169.254/latest/meta-data/" })]));
    expect(JSON.parse(direct.message.content)).toMatchObject({ error_code: "INVALID_ARGUMENTS", issues: [{ path: "url" }] });
    const bounced = only(
      await callTools(agent, "hr-ssrf", [
        openaiCall("c2", "http_request", { url: `http://${WEB_HOST}/redirect?to=${encodeURIComponent("http://127.0.0.1:8787/v1/keys")}` }),
      ]),
    );
    expect(bounced).toMatchObject({ status: "error", error_code: "EXECUTION_FAILED" });
    expect(JSON.parse(bounced.message.content).error).toContain("127.0.0.1");
  });

  it("sends a granted secret as a header and never returns its value, though the server echoes it", async () => {
    const result = await callWithSecret({ url: echoUrl, headers: { authorization: { secret: "TEST_API_KEY" } } });
    expect(result.status).toBe("ok");
    expect(result.message.content).not.toContain(SECRET_VALUE);
    expect(echoOf(result).headers.authorization).toBe("[secret TEST_API_KEY]");
    expect(answerOf(result).headers["x-echo-authorization"]).toBe("[secret TEST_API_KEY]");
  });

  it("audits a call that sent a granted secret as using the shared credential, and one without as using none", async () => {
    const marker = crypto.randomUUID();
    await callWithSecret({ url: `${echoUrl}?with=${marker}`, headers: { authorization: { secret: "TEST_API_KEY" } } });
    await callWithSecret({ url: `${echoUrl}?without=${marker}` });
    const rows = await waitForAuditRows("tool = 'http_request' AND arguments LIKE ?", [`%${marker}%`], 2);
    // Matched by argument, not by order: two records of one millisecond are ordered by a random rid.
    const credentialOf = (query: string) => rows.find((row) => String(row.arguments).includes(query))?.credential;
    expect([credentialOf(`with=${marker}`), credentialOf(`without=${marker}`)]).toEqual(["shared", null]);
    expect(JSON.stringify(rows)).not.toContain(SECRET_VALUE);
  });

  it("drops a secret header when a redirect leaves the host it is granted for", async () => {
    const result = await callWithSecret({
      url: `${echoUrl.replace("/echo", "/redirect")}?to=${encodeURIComponent(`http://${MIRROR_HOST}/echo`)}`,
      headers: { authorization: { secret: "TEST_API_KEY" }, "x-plain": "kept" },
    });
    expect(answerOf(result).url).toBe(`http://${MIRROR_HOST}/echo`);
    expect(echoOf(result).headers).toMatchObject({ "x-plain": "kept" });
    expect(echoOf(result).headers.authorization).toBeUndefined();
  });

  it("refuses a secret the operator did not grant, or not for this host, naming the header", async () => {
    const stolen = await callWithSecret({ url: echoUrl, headers: { authorization: { secret: "ADMIN_TOKEN" } } });
    expect(JSON.parse(stolen.message.content)).toMatchObject({
      error_code: "INVALID_ARGUMENTS",
      issues: [{ path: "headers.authorization", message: expect.stringContaining("HTTP_REQUEST_SECRETS") }],
    });
    const elsewhere = await callWithSecret({ url: `http://${MIRROR_HOST}/echo`, headers: { authorization: { secret: "TEST_API_KEY" } } });
    expect(JSON.parse(elsewhere.message.content)).toMatchObject({
      error_code: "INVALID_ARGUMENTS",
      issues: [{ path: "headers.authorization", message: expect.stringContaining(`only to ${WEB_HOST}`) }],
    });
    expect(elsewhere.message.content).not.toContain(SECRET_VALUE);
  });

  it("treats a granted secret set to only whitespace as unset, and sends nothing", async () => {
    const blank = await callWithSecret({ url: echoUrl, headers: { authorization: { secret: "TEST_API_KEY" } } }, { ...withSecret, TEST_API_KEY: "  " } as Env);
    expect(JSON.parse(blank.message.content)).toMatchObject({
      error_code: "INVALID_ARGUMENTS",
      issues: [{ path: "headers.authorization", message: expect.stringContaining("TEST_API_KEY is not set") }],
    });
  });
});
