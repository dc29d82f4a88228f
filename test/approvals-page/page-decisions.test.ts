/**
 * Deciding approvals through the page, against the real approvals core (Session Durable
 * Objects, the D1 index) behind the Worker's own fetch handler: what the listing shows, that
 * hostile values stay text, that each button makes the decision it says, and what a late
 * second decision sees.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { getApproval } from "../../src/approvals/approvals.ts";
import { defineTool, registry } from "../../src/registry/registry.ts";
import { api } from "../support/api.ts";
import { type CreatedKey, createKey } from "../support/create-key.ts";
import { openaiCall } from "../support/tool-calls.ts";
import { csrfOf, PageClient } from "./page-client.ts";

const TOOL = "page_write";
const HOSTILE = `</pre><script>alert("x")</script><img src=x onerror=alert(1)>`;

let agent: CreatedKey;
let approver: CreatedKey;
let client: PageClient;

beforeAll(async () => {
  // A risky tool: every call waits for a person. Registered for this test file's isolate only.
  expect(
    registry.register(
      defineTool({
        name: TOOL,
        toolset: "page-set",
        risky: true,
        schema: z.object({ note: z.string() }),
        handler: ({ note }) => ({ written: note }),
      }),
    ),
  ).toMatchObject({ ok: true });
  [agent, approver] = await Promise.all([createKey({ name: "page-agent", role: "agent" }), createKey({ name: "page-approver", role: "approver" })]);
  client = new PageClient();
  expect((await client.signIn(approver.key)).status).toBe(303);
});

/** The agent asks for one risky call; returns the approval id. */
async function requestApproval(sessionId: string, note: string, callId = `call_${crypto.randomUUID()}`): Promise<string> {
  const response = await api("/v1/tool-calls", {
    body: { session_id: sessionId, tool_calls: [openaiCall(callId, TOOL, { note })] },
    headers: { authorization: `Bearer ${agent.key}` },
  });
  expect(response.status).toBe(200);
  const { results } = (await response.json()) as { results: { status: string; approval?: { id: string } }[] };
  expect(results[0]?.status).toBe("pending_approval");
  const id = results[0]?.approval?.id;
  if (id === undefined) throw new Error("no approval id");
  return id;
}

/** Posts a decision form as the signed-in approver, with the token of the page last shown. */
async function decide(id: string, fields: Record<string, string>): Promise<Response> {
  await client.get("/approvals");
  return client.post(`/approvals/${id}/decision`, { ...fields, csrf: csrfOf(client.lastPage) });
}

const sessionId = () => `page-${crypto.randomUUID()}`;

describe("the pending list", () => {
  it("shows each pending call: tool, pretty-printed arguments, session, requester, age and time left", async () => {
    const session = sessionId();
    const id = await requestApproval(session, "list me");
    const response = await client.get("/approvals");
    expect(response.status).toBe(200);
    const page = client.lastPage;
    const card = page.slice(page.indexOf(`data-approval-id="${id}"`));
    expect(card).toContain(`>${TOOL}</a></h3>`);
    expect(card).toContain(`<pre>{\n  &quot;note&quot;: &quot;list me&quot;\n}</pre>`);
    expect(card).toContain(`href="/approvals/sessions/${session}"`);
    expect(card).toContain(`page-agent <span class="muted">(${agent.id})</span>`);
    expect(card).toMatch(/<dt>Requested<\/dt><dd><time datetime="[^"]+">\d+ s ago<\/time>/);
    expect(card).toMatch(/<dt>Time left<\/dt><dd><time datetime="[^"]+">\d+ min( \d+ s)?<\/time>/);
    expect(card).toContain('<label for="reason-');
    expect(card).toContain(">Approve once</button>");
  });

  it("keeps hostile arguments, call ids and session ids as text: nothing in them becomes markup", async () => {
    const id = await requestApproval(sessionId(), HOSTILE, `call_"><script>alert(2)</script>`);
    await client.get(`/approvals/${id}`);
    expect(client.lastPage).not.toContain("<script>");
    expect(client.lastPage).not.toContain("<img src=x");
    expect(client.lastPage).toContain("&lt;/pre&gt;&lt;script&gt;alert(\\&quot;x\\&quot;)&lt;/script&gt;");
    expect(client.lastPage).toContain("call_&quot;&gt;&lt;script&gt;alert(2)&lt;/script&gt;");

    await client.get(`/approvals/sessions/${encodeURIComponent("<script>alert(3)</script>")}`);
    expect(client.lastPage).not.toContain("<script>");
    expect(client.lastPage).toContain("&lt;script&gt;alert(3)&lt;/script&gt;");
  });
});

describe("deciding from the page", () => {
  it("approves once: the call runs, and the page says what happened", async () => {
    const id = await requestApproval(sessionId(), "approve me once");
    const response = await decide(id, { decision: "approve_once" });
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe(`/approvals?decided=${id}`);
    await client.get(`/approvals?decided=${id}`);
    expect(client.lastPage).toMatch(new RegExp(`role="status">${TOOL} \\(${id}\\): approved once`));

    await expect.poll(async () => (await getApproval(env, id))?.result?.status).toBe("ok");
    const approval = await getApproval(env, id);
    expect(approval).toMatchObject({ status: "approved", scope: "once", decidedBy: approver.id });
    expect(approval?.result?.content).toContain("approve me once");
  });

  it("approves for the session: the decision carries that scope", async () => {
    const id = await requestApproval(sessionId(), "approve the session");
    expect((await decide(id, { decision: "approve_session" })).status).toBe(303);
    expect(await getApproval(env, id)).toMatchObject({ status: "approved", scope: "session", decidedBy: approver.id });
  });

  it("denies with the typed reason, which becomes the agent's APPROVAL_DENIED", async () => {
    const id = await requestApproval(sessionId(), "deny me");
    expect((await decide(id, { decision: "deny", reason: "  Not on a Friday.  " })).status).toBe(303);
    const approval = await getApproval(env, id);
    expect(approval).toMatchObject({ status: "denied", reason: "Not on a Friday.", decidedBy: approver.id });
    expect(approval?.result?.errorCode).toBe("APPROVAL_DENIED");
    expect(approval?.result?.content).toContain("Not on a Friday.");
  });

  it("answers a second decision with 409 and the state the first one left", async () => {
    const id = await requestApproval(sessionId(), "decided twice");
    await client.get("/approvals");
    const staleToken = csrfOf(client.lastPage);
    expect((await decide(id, { decision: "deny", reason: "first" })).status).toBe(303);
    const response = await client.post(`/approvals/${id}/decision`, { decision: "approve_once", csrf: staleToken });
    expect(response.status).toBe(409);
    expect(client.lastPage).toContain("This approval was already denied, so your decision was not applied.");
    expect(client.lastPage).toContain("<dt>Reason</dt><dd>first</dd>");
    expect(client.lastPage).not.toContain(">Approve once</button>");
    expect((await getApproval(env, id))?.status).toBe("denied");
  });

  it("answers an unknown approval with a 404 page", async () => {
    expect((await client.get("/approvals/no-such-approval")).status).toBe(404);
    expect(client.lastPage).toContain("No approval has the id &quot;no-such-approval&quot;");
    expect((await decide("no-such-approval", { decision: "approve_once" })).status).toBe(404);
  });
});

describe("a session's page", () => {
  it("shows the session's approvals and, once the audit log has them, its calls", async () => {
    const session = sessionId();
    const id = await requestApproval(session, "trail me");
    await decide(id, { decision: "approve_once" });
    await expect
      .poll(
        async () => {
          await client.get(`/approvals/sessions/${session}`);
          return client.lastPage;
        },
        { timeout: 10_000, interval: 200 },
      )
      .toMatch(/<tbody><tr>.*page_write/);
    expect(client.lastPage).toContain(`Approvals in this session (1)`);
    expect(client.lastPage).toContain(`href="/approvals/${id}"`);
  });
});
