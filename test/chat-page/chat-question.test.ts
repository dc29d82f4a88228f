/**
 * The agent's question (clarify) on the chat page, server-rendered: the choices as buttons and a
 * free-text answer in one form; a choice's button answers and the run goes on; another key sees
 * no run; an answer to a question no longer waiting is refused with a page, not a 500.
 */
import { describe, expect, it } from "vitest";
import { csrfOf, PageClient } from "../approvals-page/page-client.ts";
import { createKey } from "../support/create-key.ts";
import { marker, scriptModel, sentToModel } from "../support/model-script.ts";
import { runUntil } from "../support/runs.ts";

const FINISHED = ["completed", "failed", "limit_reached", "cancelled"];

async function signedInClient(): Promise<{ client: PageClient; csrf: string }> {
  const key = await createKey({ name: `chat-q-${crypto.randomUUID()}`, role: "agent" });
  const client = new PageClient();
  await client.get("/chat/sign-in");
  expect((await client.post("/chat/sign-in", { key: key.key, csrf: csrfOf(client.lastPage) })).status).toBe(303);
  await client.get("/chat");
  return { client, csrf: csrfOf(client.lastPage) };
}

/** A run started from the page whose agent asks `question` with `choices`, waiting on it. */
async function askingRun(client: PageClient, csrf: string, question: string, choices: string[]) {
  const script = await scriptModel([
    { tool_calls: [{ id: "cq_1", name: "clarify", arguments: JSON.stringify({ question, choices }) }] },
    { content: "Thanks, going ahead." },
  ]);
  const started = await client.post("/chat", { message: `${marker(script)} do it`, csrf });
  const id = /^\/chat\/runs\/([\w-]+)$/.exec(started.headers.get("location") ?? "")?.[1] ?? "";
  expect((await runUntil(id, ["awaiting_input", ...FINISHED])).status).toBe("awaiting_input");
  return { id, script };
}

describe("the agent's question on /chat", () => {
  it("shows the question with each choice as a button and a free-text answer; a button answers it and the run goes on", async () => {
    const { client, csrf } = await signedInClient();
    const { id, script } = await askingRun(client, csrf, "Which <b>colour</b>?", ["red", "blue & green"]);

    expect((await client.get(`/chat/runs/${id}`)).status).toBe(200);
    const page = client.lastPage;
    const form = /<form method="post" action="\/chat\/runs\/[\w-]+\/answer"[\s\S]*?<\/form>/.exec(page)?.[0] ?? "";
    expect(form).toContain("Which &lt;b&gt;colour&lt;/b&gt;?");
    expect(form).toMatch(/<button type="submit" name="choice" value="red"[^>]*>red<\/button>/);
    expect(form).toMatch(/<button type="submit" name="choice" value="blue &amp; green"[^>]*>blue &amp; green<\/button>/);
    expect(form).toMatch(/<textarea id="answer" name="answer"/);
    expect(form).toContain('name="question_id" value="cq_1"');
    expect(page).toMatch(/<span class="status awaiting_input">awaiting input<\/span>/);

    const answered = await client.post(`/chat/runs/${id}/answer`, { choice: "blue & green", answer: "", question_id: "cq_1", csrf: csrfOf(page) });
    expect(answered.status).toBe(303);
    expect(answered.headers.get("location")).toBe(`/chat/runs/${id}`);
    expect(await runUntil(id, FINISHED)).toMatchObject({ status: "completed", answer: "Thanks, going ahead." });
    const tool = (await sentToModel(script)).requests[1]?.messages.find((m) => m.role === "tool");
    expect(JSON.parse(String(tool?.content))).toMatchObject({ user_response: "blue & green" });

    await client.get(`/chat/runs/${id}`);
    expect(client.lastPage).not.toContain("/answer");
    const again = await client.post(`/chat/runs/${id}/answer`, { answer: "red", question_id: "cq_1", csrf: csrfOf(client.lastPage) });
    expect(again.status).toBe(409);
    expect(client.lastPage).toContain("not waiting for an answer");
  });

  it("takes the person's own words over a choice, refuses an empty answer, and hides the run from another key", async () => {
    const { client, csrf } = await signedInClient();
    const { id, script } = await askingRun(client, csrf, "Deploy now?", ["yes", "no"]);
    expect((await client.post(`/chat/runs/${id}/answer`, { answer: "  ", csrf })).status).toBe(400);

    const other = await signedInClient();
    expect((await other.client.post(`/chat/runs/${id}/answer`, { answer: "yes", csrf: other.csrf })).status).toBe(404);
    expect((await runUntil(id, ["awaiting_input", ...FINISHED])).status).toBe("awaiting_input");

    expect((await client.post(`/chat/runs/${id}/answer`, { answer: "after lunch", csrf })).status).toBe(303);
    await runUntil(id, FINISHED);
    const tool = (await sentToModel(script)).requests[1]?.messages.find((m) => m.role === "tool");
    expect(JSON.parse(String(tool?.content))).toMatchObject({ user_response: "after lunch" });
  });
});
