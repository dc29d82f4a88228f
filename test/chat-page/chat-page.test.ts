/**
 * The chat page against the real Worker and the scripted model: sign-in, the form's defences,
 * a run started from a message and shown as a transcript, a payload shown inert, an approval
 * linked and the run resumed once it is decided.
 */
import { describe, expect, it } from "vitest";
import { csrfOf, PageClient, SESSION_COOKIE } from "../approvals-page/page-client.ts";
import { api } from "../support/api.ts";
import { createKey } from "../support/create-key.ts";
import { marker, scriptModel, sentToModel } from "../support/model-script.ts";
import { runUntil } from "../support/runs.ts";

const FINISHED = ["completed", "failed", "limit_reached", "cancelled"];

async function signedIn(role: "agent" | "admin" = "agent"): Promise<{ client: PageClient; csrf: string; keyId: string; bearer: Record<string, string> }> {
  const key = await createKey({ name: `chat-${role}-${crypto.randomUUID()}`, role });
  const client = new PageClient();
  await client.get("/chat/sign-in");
  const response = await client.post("/chat/sign-in", { key: key.key, csrf: csrfOf(client.lastPage) });
  expect(response.status).toBe(303);
  expect(response.headers.getSetCookie().some((l) => l.startsWith(`${SESSION_COOKIE}=`) && /HttpOnly; Secure; SameSite=Strict/.test(l))).toBe(true);
  await client.get("/chat");
  return { client, csrf: csrfOf(client.lastPage), keyId: key.id, bearer: { authorization: `Bearer ${key.key}` } };
}

/** Posts a message and follows the redirect to the run's id. */
async function send(client: PageClient, csrf: string, message: string, after?: string): Promise<string> {
  const response = await client.post("/chat", { message, csrf, ...(after === undefined ? {} : { after }) });
  expect(response.status).toBe(303);
  const id = /^\/chat\/runs\/([\w-]+)$/.exec(response.headers.get("location") ?? "")?.[1];
  expect(id).toBeDefined();
  return id as string;
}

describe("the chat page", () => {
  it("asks a visitor without a session to sign in, and serves no script there", async () => {
    const client = new PageClient();
    const response = await client.get("/chat");
    expect(response.status).toBe(401);
    expect(client.lastPage).toContain('action="/chat/sign-in"');
    expect(client.lastPage).not.toContain("<script");
    expect(response.headers.get("content-security-policy")).not.toContain("script-src");
    const post = await client.post("/chat", { message: "hi", csrf: "x" });
    expect(post.status).toBe(401);
  });

  it("shows an agent key only the chat link, and refuses its sign-in the console and the approvals page with a 403 page", async () => {
    const { client } = await signedIn("agent");
    const nav = /<nav class="site"[\s\S]*?<\/nav>/.exec(client.lastPage)?.[0] ?? "";
    expect(nav).toContain('href="/chat"');
    expect(nav).not.toMatch(/href="\/(admin|approvals)/);
    for (const path of ["/admin", "/admin/keys", "/approvals"]) {
      expect((await client.get(path)).status).toBe(403);
      expect(client.lastPage).toContain("has the agent role;");
      expect(client.lastPage).not.toContain('action="/admin/sign-in"');
    }
    expect((await client.get("/chat")).status).toBe(200);
  });

  it("refuses a message without the sign-in's CSRF token, or sent from another site, and starts nothing", async () => {
    const { client, csrf, bearer } = await signedIn();
    const missing = await client.post("/chat", { message: "hello" });
    expect(missing.status).toBe(403);
    expect(client.lastPage).toContain("security token is missing or wrong");
    const crossSite = await client.post("/chat", { message: "hello", csrf }, { origin: "https://evil.example", "sec-fetch-site": "cross-site" });
    expect(crossSite.status).toBe(403);
    expect(client.lastPage).toContain("sent from another site");
    const runs = await api("/v1/runs?limit=5", { headers: bearer });
    expect((await runs.json<{ runs: unknown[] }>()).runs).toEqual([]);
  });

  it("answers an empty or over-long message with a clear message on the form, not a 500", async () => {
    const { client, csrf } = await signedIn();
    expect((await client.post("/chat", { message: "   ", csrf })).status).toBe(400);
    expect(client.lastPage).toContain("Write a message first.");
    const long = "x".repeat(8001);
    expect((await client.post("/chat", { message: long, csrf })).status).toBe(400);
    expect(client.lastPage).toContain("at most 8000 characters; this one has 8001");
    expect((await client.post("/chat", { message: "hi", csrf, after: "no-such-run" })).status).toBe(404);
    expect(client.lastPage).toContain("No such run");
  });

  it("starts a run through POST /v1/runs, shows tool calls expandable and the answer, with the payload inert", async () => {
    const payload = `<img src=x onerror="alert(1)"><script>alert(2)</script>`;
    const script = await scriptModel([
      { tool_calls: [{ id: "c_1", name: "echo", arguments: JSON.stringify({ text: payload }) }] },
      { content: `Echoed: ${payload}` },
    ]);
    const { client, csrf, keyId, bearer } = await signedIn();
    const id = await send(client, csrf, `${marker(script)} echo this`);
    const run = await runUntil(id, FINISHED);
    expect(run.status).toBe("completed");

    const response = await client.get(`/chat/runs/${id}`);
    expect(response.status).toBe(200);
    const page = client.lastPage;
    expect(page).toContain('<details id="call-c_1">');
    expect(page).toContain("<code>echo</code>");
    expect(page).not.toContain("<img src=x");
    expect(page).not.toContain("<script>alert");
    expect(page).toContain("&lt;img src=x onerror=");
    // Finished: nothing to follow, so no script, and the reply form continues the conversation.
    expect(page).not.toContain("<script");
    expect(page).toContain(`name="after" value="${id}"`);
    expect(response.headers.get("content-security-policy")).toContain("script-src 'self'");
    expect(response.headers.get("content-security-policy")).not.toContain("unsafe-inline");

    // The run belongs to the signed-in key, as if it had called the API itself.
    const listed = await api("/v1/runs?limit=5", { headers: bearer });
    expect((await listed.json<{ runs: { id: string; key_id: string }[] }>()).runs).toEqual([expect.objectContaining({ id, key_id: keyId })]);
    const { requests } = await sentToModel(script);
    expect(requests[0]?.messages.at(-1)).toMatchObject({ role: "user", content: `${marker(script)} echo this` });
  });

  it("continues a finished run's conversation in its session with a reply", async () => {
    const script = await scriptModel([{ content: "first answer" }, { content: "second answer" }]);
    const { client, csrf } = await signedIn();
    const first = await send(client, csrf, `${marker(script)} one`);
    const firstRun = await runUntil(first, FINISHED);
    const second = await send(client, csrf, "two", first);
    const secondRun = await runUntil(second, FINISHED);
    expect(secondRun).toMatchObject({ status: "completed", answer: "second answer", session_id: firstRun.session_id });
    const { requests } = await sentToModel(script);
    expect(requests[1]?.messages.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
  });

  it("links a pending approval, streams the run's events, and shows the run resumed once the approval is decided", async () => {
    const script = await scriptModel([
      { tool_calls: [{ id: "d_1", name: "delete_result", arguments: JSON.stringify({ handle: "0b6a1d2e-5b8c-4f61-9d7e-3f2a1c0b9e88" }) }] },
      { content: "deleted it" },
    ]);
    const { client, csrf } = await signedIn();
    const id = await send(client, csrf, `${marker(script)} delete it`);
    const waiting = await runUntil(id, ["awaiting_approval", ...FINISHED]);
    expect(waiting.status).toBe("awaiting_approval");
    const approval = waiting.pending_approvals[0] as { approval_id: string; url: string };

    await client.get(`/chat/runs/${id}`);
    expect(client.lastPage).toContain(`href="${approval.url}"`);
    expect(client.lastPage).toContain('<script src="/chat/chat.js" defer="">');
    expect(client.lastPage).toContain(`data-events="/chat/runs/${id}/events"`);

    const decided = await api(`/v1/approvals/${approval.approval_id}?session_id=${waiting.session_id}`, { body: { decision: "approve", scope: "once" } });
    expect(decided.status).toBe(200);
    await runUntil(id, FINISHED);

    const events = await client.get(`/chat/runs/${id}/events`);
    expect(events.headers.get("content-type")).toContain("text/event-stream");
    const text = await events.text();
    expect(text).toContain("event: approval.pending");
    expect(text).toContain("event: approval.settled");
    expect(text).toContain("event: run.finished");

    const section = await client.get(`/chat/runs/${id}/section`);
    expect(section.status).toBe(200);
    expect(client.lastPage).toContain("deleted it");
    // The call waited, then ran: it shows what it came to, not the wait.
    expect(client.lastPage).toMatch(/<code>delete_result<\/code><span class="status (ok|error)">/);
    expect(client.lastPage).not.toContain("APPROVAL_REQUIRED");
    expect(client.lastPage).not.toContain("<html");
  });

  it("shows another key's run as not found", async () => {
    const script = await scriptModel([{ content: "private" }]);
    const owner = await signedIn();
    const id = await send(owner.client, owner.csrf, `${marker(script)} mine`);
    const other = await signedIn();
    expect((await other.client.get(`/chat/runs/${id}`)).status).toBe(404);
    expect((await other.client.get(`/chat/runs/${id}/events`)).status).toBe(404);
  });

  it("serves its script and stylesheet publicly", async () => {
    const client = new PageClient();
    const js = await client.get("/chat/chat.js");
    expect(js.headers.get("content-type")).toContain("text/javascript");
    expect(await js.text()).toContain("new EventSource");
    expect((await client.get("/chat/page.css")).status).toBe(200);
  });
});
