/**
 * Webhooks that start an agent run (issue 14): a signed delivery starts a durable run against the
 * scripted model (test/support/model-server.ts), the Run object reports its end to the delivery,
 * and the answer reaches the signed callback and, for the shipped GitHub mention webhook, the
 * GitHub stand-in (test/support/upstream.ts) as one comment. The queue consumer and the Run
 * object are the Worker's own; only the model and GitHub are stand-ins.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { STUCK_AFTER_MS, stuckDeliveries } from "../../src/admin/stuck-deliveries.ts";
import { noteRunWaiting, noteSettledForRun } from "../../src/approvals/run-wakeups.ts";
import { claimRunDelivery, setDeliveryRun } from "../../src/webhooks/delivery-runs.ts";
import { insertDelivery } from "../../src/webhooks/delivery-store.ts";
import { defineWebhook, type WebhookSpec, webhookRegistry } from "../../src/webhooks/webhook-registry.ts";
import { signedInAs } from "../admin/admin-client.ts";
import { api } from "../support/api.ts";
import { readInbox } from "../support/inbox.ts";
import { json } from "../support/json.ts";
import { marker, scriptModel, sentToModel } from "../support/model-script.ts";
import { getRun, runUntil } from "../support/runs.ts";
import { TEST_WEBHOOK_SECRET } from "../support/test-env.ts";
import { consume, type DeliveryView, genericHeaders, githubHeaders, hmacHex, post, waitForDelivery } from "./support.ts";

const CALLBACK_INBOX = "hook-run-callbacks";

interface RunDeliveryView extends DeliveryView {
  run: { id: string; url: string; status: string; answer: string | null; error: { code: string; message: string } | null } | null;
}

const Ask = z.object({ question: z.string().max(2_000) });

/** A run webhook over the `core` toolset (echo) that calls back to an inbox of the upstream stand-in. */
function registerAskWebhook(): void {
  if (webhookRegistry.get("ask-run") !== undefined) return;
  const spec: WebhookSpec<typeof Ask> = {
    name: "ask-run",
    description: "test: a run per question",
    verify: "hmac",
    secretEnv: "HOOK_TEST_SECRET",
    toolsets: ["core"],
    payload: Ask,
    run: { system: "Answer briefly.", prompt: ({ payload }) => `Question: ${payload.question}`, maxTurns: 5 },
    callbackUrl: `http://upstream.test/inbox/${CALLBACK_INBOX}`,
  };
  expect(webhookRegistry.register(defineWebhook(spec))).toEqual({ ok: true });
}

async function deliver(hook: string, body: unknown, delivery = crypto.randomUUID()): Promise<Response> {
  const text = JSON.stringify(body);
  return post(hook, text, await genericHeaders(text, { delivery }));
}

const finished = (view: DeliveryView): boolean => view.status === "done" || view.status === "failed";

describe("registering a run webhook", () => {
  const base = { description: "test", verify: "hmac" as const, secretEnv: "HOOK_TEST_SECRET", toolsets: ["core"] };

  it("refuses a spec with both map and run, and one with neither", () => {
    const both = webhookRegistry.register({ ...base, name: "both-map-run", map: () => [], run: { prompt: () => "hi" } });
    expect(both).toEqual({
      ok: false,
      reason: "hook 'both-map-run' must declare exactly one of map (fixed tool calls) and run (an agent run); it declares both.",
    });
    const neither = webhookRegistry.register({ ...base, name: "neither-map-run" });
    expect(neither).toMatchObject({ ok: false, reason: expect.stringContaining("it declares neither") });
    expect(webhookRegistry.get("both-map-run")).toBeUndefined();
  });

  it("refuses run toolsets outside the webhook's own", () => {
    const outcome = webhookRegistry.register({ ...base, name: "run-too-wide", run: { prompt: () => "hi", toolsets: ["web"] } });
    expect(outcome).toMatchObject({ ok: false, reason: expect.stringContaining("web is not") });
  });
});

describe("a delivery to a run webhook", () => {
  it("starts a run that calls a tool, and calls back with the run's id, status and answer, signed", async () => {
    registerAskWebhook();
    const script = await scriptModel([
      { tool_calls: [{ id: "call_e", name: "echo", arguments: JSON.stringify({ text: "pong" }) }] },
      { content: "The echo said pong." },
    ]);
    const res = await deliver("ask-run", { question: `${marker(script)} what does echo say?` });
    expect(res.status).toBe(202);
    const accepted = await json<{ delivery_id: string; status: string; run: boolean }>(res);
    expect(accepted).toMatchObject({ status: "queued", run: true });

    const view = await waitForDelivery(accepted.delivery_id, (v) => finished(v) && v.callback?.status === "delivered");
    const delivered = view as RunDeliveryView;
    expect(delivered.status).toBe("done");
    expect(delivered.run).toMatchObject({ status: "completed", answer: "The echo said pong.", error: null });
    const runId = delivered.run?.id ?? "";
    expect(delivered.run?.url).toBe(`/v1/runs/${runId}`);
    const outcomes = view.events.map((e) => e.outcome);
    expect(outcomes).toEqual(expect.arrayContaining(["accepted", "run_started", "run_finished", "done", "callback_delivered"]));
    expect(view.events.find((e) => e.outcome === "run_started")?.detail).toContain(runId);

    // The run is an ordinary durable run, as principal hook:ask-run, with its origin recorded.
    const run = await getRun(runId);
    expect(run).toMatchObject({ status: "completed", session_id: accepted.delivery_id, hook: { name: "ask-run", delivery_id: accepted.delivery_id } });
    expect(run.steps[0]?.calls).toEqual([expect.objectContaining({ id: "call_e", tool: "echo", status: "ok" })]);
    const { requests } = await sentToModel(script);
    expect(requests[0]?.messages.map((m) => m.role)).toEqual(["system", "user"]);
    expect(requests[0]?.tools?.map((t) => t.function.name)).toContain("echo");

    // The callback: signed like every webhook callback, carrying the run.
    const sent = (await readInbox(CALLBACK_INBOX)).filter((m) => m.headers["x-toolgate-delivery"] === accepted.delivery_id);
    expect(sent).toHaveLength(1);
    const callback = sent[0];
    if (callback === undefined) return;
    const timestamp = callback.headers["x-toolgate-timestamp"] ?? "";
    expect(callback.headers["x-toolgate-signature-256"]).toBe(`sha256=${await hmacHex(TEST_WEBHOOK_SECRET, `${timestamp}.${callback.body}`)}`);
    expect(JSON.parse(callback.body)).toEqual({
      delivery_id: accepted.delivery_id,
      hook: "ask-run",
      provider_delivery_id: expect.any(String),
      status: "done",
      results: [],
      run: { id: runId, status: "completed", answer: "The echo said pong.", error: null },
    });
  });

  it("starts no second run for a replay or a redelivered message", async () => {
    registerAskWebhook();
    const script = await scriptModel([{ content: "once" }]);
    const sender = crypto.randomUUID();
    const body = { question: `${marker(script)} once?` };
    const first = await json<{ delivery_id: string }>(await deliver("ask-run", body, sender));
    const view = (await waitForDelivery(first.delivery_id, finished)) as RunDeliveryView;
    expect(view.run).toMatchObject({ status: "completed", answer: "once" });

    const replay = await deliver("ask-run", body, sender);
    expect(replay.status).toBe(200);
    expect(await json(replay)).toMatchObject({ delivery_id: first.delivery_id, replay: true });
    // The queue redelivering either message finds the delivery finished and starts nothing.
    expect(await consume({ deliveryId: first.delivery_id })).toBe("ack");
    expect(await consume({ kind: "run_finished", deliveryId: first.delivery_id, runId: view.run?.id ?? "" })).toBe("ack");

    const runs = await json<{ runs: { id: string }[] }>(await api(`/v1/runs?session_id=${first.delivery_id}`));
    expect(runs.runs.map((r) => r.id)).toEqual([view.run?.id]);
    expect((await sentToModel(script)).requests).toHaveLength(1);
  });

  it("refuses a payload its schema refuses with 400, and nothing runs", async () => {
    registerAskWebhook();
    const sender = crypto.randomUUID();
    const res = await deliver("ask-run", { question: 42 }, sender);
    expect(res.status).toBe(400);
    expect(await json(res)).toMatchObject({ error_code: "INVALID_REQUEST" });
    const row = await env.DB.prepare("SELECT COUNT(*) AS n FROM hook_deliveries WHERE hook = 'ask-run' AND provider_delivery_id = ?")
      .bind(sender)
      .first<{ n: number }>();
    expect(row?.n).toBe(0);
  });

  it("fails with MODEL_NOT_CONFIGURED without a model, and a re-run once it is configured runs it", async () => {
    registerAskWebhook();
    const script = await scriptModel([{ content: "configured now" }]);
    const id = crypto.randomUUID();
    // Stored as the route stores it, but handed to the consumer by the test, with an env that has no model.
    await insertDelivery(env.DB, {
      id,
      hook: "ask-run",
      providerDeliveryId: id,
      receivedAt: Date.now(),
      calls: [],
      status: "queued",
      callbackPending: false,
      runPlan: {
        messages: [{ role: "user", content: `${marker(script)} hello` }],
        model: undefined,
        max_turns: undefined,
        toolsets: undefined,
        reply: undefined,
      },
    });
    const noModel = { ...env, MODEL_BASE_URL: "", MODEL_NAME: "" } as Env;
    expect(await consume({ deliveryId: id }, { workerEnv: noModel })).toBe("ack");
    const failed = (await waitForDelivery(id, finished)) as RunDeliveryView;
    expect(failed.status).toBe("failed");
    expect(failed.error).toMatch(/^MODEL_NOT_CONFIGURED: .*MODEL_BASE_URL, MODEL_NAME/);
    expect(failed.error).toContain(`/v1/hooks/deliveries/${id}/rerun`);
    expect(failed.run).toBeNull();

    const rerun = await api(`/v1/hooks/deliveries/${id}/rerun`, { method: "POST" });
    expect(rerun.status).toBe(202);
    const done = (await waitForDelivery(id, finished)) as RunDeliveryView;
    expect(done).toMatchObject({ status: "done", run: { status: "completed", answer: "configured now" } });
  });
});

describe("a run webhook's run in the rest of toolgate", () => {
  it("waits for a person on a risky call, as hook:<name>, and finishes the delivery once it is decided", async () => {
    const Req = z.object({ ask: z.string() });
    if (webhookRegistry.get("approve-run") === undefined) {
      const spec: WebhookSpec<typeof Req> = {
        name: "approve-run",
        description: "test: a run that deletes",
        verify: "hmac",
        secretEnv: "HOOK_TEST_SECRET",
        toolsets: ["maintenance"],
        payload: Req,
        run: { prompt: ({ payload }) => payload.ask },
      };
      expect(webhookRegistry.register(defineWebhook(spec))).toEqual({ ok: true });
    }
    const script = await scriptModel([
      { tool_calls: [{ id: "del_1", name: "delete_result", arguments: JSON.stringify({ handle: "0b6a1d2e-5b8c-4f61-9d7e-3f2a1c0b9e88" }) }] },
      { content: "left it alone" },
    ]);
    const { delivery_id: id } = await json<{ delivery_id: string }>(await deliver("approve-run", { ask: `${marker(script)} delete it` }));
    const started = (await waitForDelivery(id, (v) => (v as RunDeliveryView).run !== null)) as RunDeliveryView;
    const waiting = await runUntil(started.run?.id ?? "", ["awaiting_approval", "completed", "failed"]);
    expect(waiting.status).toBe("awaiting_approval");
    expect((await waitForDelivery(id, () => true)).status).toBe("running");

    const approval = waiting.pending_approvals[0]?.approval_id ?? "";
    const decided = await api(`/v1/approvals/${approval}?session_id=${id}`, { body: { decision: "deny", scope: "once", reason: "keep it" } });
    expect(decided.status).toBe(200);
    const done = (await waitForDelivery(id, finished)) as RunDeliveryView;
    expect(done).toMatchObject({ status: "done", error: null, run: { status: "completed", answer: "left it alone" } });
    const audit = await env.DB.prepare(
      "SELECT COUNT(*) AS n FROM hook_events WHERE delivery_id = ? AND outcome IN ('approval_settled', 'dead_lettered', 'failed')",
    )
      .bind(id)
      .first<{ n: number }>();
    expect(audit?.n).toBe(0);
  });

  it("tells the Session object which settled approvals a run waits on, so no delivery notice is sent for them", async () => {
    // A webhook run's calls ask as hook:<name> like a delivery's own calls; only the latter's settlements go to the delivery.
    const session = env.SESSIONS.get(env.SESSIONS.idFromName(`hook-run-wakeups-${crypto.randomUUID()}`));
    await runInDurableObject(session, (_instance, state) => {
      noteRunWaiting(state.storage.sql, "appr_run", "run_1");
      expect(noteSettledForRun(state.storage.sql, "appr_run")).toBe(true);
      expect(noteSettledForRun(state.storage.sql, "appr_delivery")).toBe(false);
    });
  });

  it("is not listed as stuck while its run goes on, unlike a delivery whose run never started", async () => {
    const plan = { messages: [{ role: "user" as const, content: "hi" }], model: undefined, max_turns: undefined, toolsets: undefined, reply: undefined };
    const long = Date.now() - 2 * STUCK_AFTER_MS;
    const [withRun, withoutRun] = [crypto.randomUUID(), crypto.randomUUID()];
    for (const id of [withRun, withoutRun]) {
      await insertDelivery(env.DB, {
        id,
        hook: "ask-run",
        providerDeliveryId: id,
        receivedAt: long,
        calls: [],
        status: "queued",
        callbackPending: false,
        runPlan: plan,
      });
      expect(await claimRunDelivery(env.DB, id, long)).toBe(1);
    }
    expect(await setDeliveryRun(env.DB, withRun, `${withRun}-r1`, long)).toBe(true);
    const stuck = (await stuckDeliveries(env.DB, Date.now())).map((d) => d.id);
    expect(stuck).toContain(withoutRun);
    expect(stuck).not.toContain(withRun);
  });

  it("is linked from the admin console's webhooks page", async () => {
    registerAskWebhook();
    const script = await scriptModel([{ content: "linked" }]);
    const { delivery_id: id } = await json<{ delivery_id: string }>(await deliver("ask-run", { question: `${marker(script)} link?` }));
    const view = (await waitForDelivery(id, finished)) as RunDeliveryView;
    const { client } = await signedInAs("admin");
    expect((await client.get("/admin/webhooks")).status).toBe(200);
    const row = new RegExp(`<tr data-delivery="${id}">[\\s\\S]*?</tr>`).exec(client.lastPage)?.[0] ?? "";
    expect(row).toContain(`href="/chat/runs/${view.run?.id ?? "?"}"`);
  });
});

describe("the github-mention webhook", () => {
  const comment = (body: string, user: { login: string; type?: string }, number = 7) => ({
    action: "created",
    issue: { number, title: "Builds fail on main", body: "Since yesterday the build fails." },
    comment: { body, user },
    repository: { name: "widgets", owner: { login: "octo-org" } },
  });

  async function deliverComment(payload: unknown): Promise<Response> {
    const text = JSON.stringify(payload);
    return post("github-mention", text, await githubHeaders(text, { event: "issue_comment" }));
  }

  it("answers a comment mentioning @toolgate with one comment on the issue", async () => {
    const answer = `Try clearing the cache (${crypto.randomUUID()}).`;
    const script = await scriptModel([{ content: answer }]);
    const res = await deliverComment(comment(`@toolgate why does it fail? ${marker(script)}`, { login: "octocat", type: "User" }));
    expect(res.status).toBe(202);
    const { delivery_id: id } = await json<{ delivery_id: string }>(res);

    const view = (await waitForDelivery(id, finished)) as RunDeliveryView;
    expect(view).toMatchObject({ status: "done", run: { status: "completed", answer } });
    expect(view.results).toEqual([expect.objectContaining({ id: "reply", tool: "github_comment", status: "ok" })]);

    const posted = (await readInbox("github-comments")).filter((m) => m.body.includes(answer));
    expect(posted).toHaveLength(1);
    expect(JSON.parse(posted[0]?.body ?? "{}")).toEqual({ body: answer });
    expect(posted[0]?.headers.authorization).toBe("Bearer ghp_test_comment_token");

    // The model read the comment and could use the web tools, never the posting one.
    const { requests } = await sentToModel(script);
    expect(JSON.stringify(requests[0]?.messages)).toContain("octocat mentioned @toolgate on octo-org/widgets#7");
    expect(requests[0]?.tools?.map((t) => t.function.name) ?? []).not.toContain("github_comment");

    // A duplicated end notice posts nothing more.
    expect(await consume({ kind: "run_finished", deliveryId: id, runId: view.run?.id ?? "" })).toBe("ack");
    expect((await readInbox("github-comments")).filter((m) => m.body.includes(answer))).toHaveLength(1);
  });

  it("starts nothing for a bot's comment, its own account's, one without a mention, or an edit", async () => {
    const payloads = [
      comment("@toolgate thanks!", { login: "toolgate[bot]", type: "Bot" }),
      comment("@toolgate said this", { login: "toolgate", type: "User" }),
      comment("no mention here, mail toolgate@example.com", { login: "octocat", type: "User" }),
      { ...comment("@toolgate edited", { login: "octocat" }), action: "edited" },
    ];
    for (const payload of payloads) {
      const res = await deliverComment(payload);
      expect(res.status).toBe(202);
      expect(await json(res)).toMatchObject({ status: "done", run: false });
    }
  });
});
