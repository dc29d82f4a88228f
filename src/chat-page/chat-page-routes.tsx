/** @jsxImportSource hono/jsx */
/**
 * The chat page (`/chat`), server-rendered with hono/jsx on the approvals page's machinery
 * (src/approvals-page/: sign-in, CSRF, headers, layout). A message starts a run through the API's
 * own POST /v1/runs as the signed-in key (admin/api-request.ts), so the page adds no rule of its
 * own; a run's page follows its events with one small script and shows the same transcript
 * without it, on reload.
 *
 * | Route | Page |
 * |---|---|
 * | GET /chat | the message form and the key's recent runs |
 * | POST /chat | `message` (and `after`, a run to continue): starts a run, then to its page |
 * | GET /chat/runs/{id} | the run: transcript, tool calls (expandable), pending approvals |
 * | POST /chat/runs/{id}/answer | `answer` or `choice`: the answer to the agent's question (POST /v1/runs/{id}/answer) |
 * | GET /chat/runs/{id}/section, /events | the run's section alone, its events (SSE) |
 * | GET /chat/connections; POST /chat/connections/{server}/{reconnect,revoke} | the key's own per-user connections (connections-routes.tsx) |
 * | GET /chat/connect/{state} | a per-user connection link |
 * | POST /chat/sign-in, /chat/sign-out | the sign-in (approvals-page/page-auth.tsx) |
 */
import { type Context, Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { apiErrorText, apiRequest, apiResponse } from "../admin/api-request.ts";
import type { RunWire } from "../agent/run-wire.ts";
import { ErrorPage } from "../approvals-page/error-page.tsx";
import { formField, pageAuth } from "../approvals-page/page-auth.tsx";
import type { PageEnv } from "../approvals-page/page-env.ts";
import { renderPage } from "../approvals-page/render-page.ts";
import { contentSecurityPolicy, securityHeaders } from "../approvals-page/security-headers.ts";
import { readFlow } from "../mcp/federation/oauth-store.ts";
import { openFlowLink } from "../mcp/federation/sign-in-routes.ts";
import { CONNECT_PATH } from "../mcp/federation/start-sign-in.ts";
import { CHAT_CSS } from "./chat-css.ts";
import { ChatHomePage, MAX_MESSAGE_CHARS, type RunListItem, RunPage, RunSection, runPath } from "./chat-pages.tsx";
import { CHAT_SCRIPT } from "./chat-script.ts";
import { CHAT_BASE, CHAT_SITE } from "./chat-site.ts";
import { chatConnectionRoutes } from "./connections-routes.tsx";

/** A message of up to MAX_MESSAGE_CHARS characters (4 bytes each at most) and a token. */
const MAX_FORM_BYTES = MAX_MESSAGE_CHARS * 4 + 1024;
const RECENT_RUNS = 10;
/** The run page's script and its event stream come from our own origin; nothing inline. */
const CHAT_POLICY = contentSecurityPolicy([], ["script-src 'self'", "connect-src 'self'"]);

type ChatContext = Context<PageEnv>;

function errorPage(c: ChatContext, status: 400 | 403 | 404 | 409 | 413 | 500 | 503, title: string, message: string) {
  return renderPage(c, <ErrorPage title={title} message={message} viewer={c.get("viewer")} site={CHAT_SITE} />, status);
}

const shownStatus = (status: number): 400 | 403 | 404 | 500 | 503 => (status === 400 || status === 403 || status === 404 || status === 503 ? status : 500);

async function homePage(c: ChatContext, extra: { error?: string; value?: string } = {}, status: 200 | 400 | 403 | 404 | 500 | 503 = 200) {
  const answer = await apiRequest(c, c.get("principal"), "GET", `/v1/runs?limit=${RECENT_RUNS}`);
  const runs = answer.status === 200 ? (answer.body as { runs: RunListItem[] }).runs : [];
  return renderPage(c, <ChatHomePage viewer={c.get("viewer")} runs={runs} {...extra} />, status);
}

/** The run as GET /v1/runs/{id} answers it for the signed-in key, or the page saying why not. */
async function readRun(c: ChatContext, id: string): Promise<RunWire | Response> {
  const answer = await apiRequest(c, c.get("principal"), "GET", `/v1/runs/${encodeURIComponent(id)}`);
  if (answer.status === 200) return answer.body as RunWire;
  return errorPage(c, shownStatus(answer.status), "No such run", apiErrorText(answer));
}

/** The page's routes, for `app.route("/", chatPageRoutes())`. */
export function chatPageRoutes(): Hono<PageEnv> {
  const page = new Hono<PageEnv>();
  const { requirePageSignIn, requireSameOrigin, signIn, signInResponse, signOut } = pageAuth(CHAT_SITE);
  page.use(`${CHAT_BASE}/*`, securityHeaders());
  page.post(
    `${CHAT_BASE}/*`,
    bodyLimit({ maxSize: MAX_FORM_BYTES, onError: (c) => errorPage(c, 413, "Message too long", `A message may be at most ${MAX_MESSAGE_CHARS} characters.`) }),
  );
  page.post(`${CHAT_BASE}/*`, requireSameOrigin());

  page.get(`${CHAT_BASE}/page.css`, (c) => c.body(CHAT_CSS, 200, { "Content-Type": "text/css; charset=utf-8", "Cache-Control": "public, max-age=300" }));
  page.get(`${CHAT_BASE}/chat.js`, (c) =>
    c.body(CHAT_SCRIPT, 200, { "Content-Type": "text/javascript; charset=utf-8", "Cache-Control": "public, max-age=300" }),
  );
  page.post(`${CHAT_BASE}/sign-in`, signIn);
  page.get(`${CHAT_BASE}/sign-in`, (c) => signInResponse(c, 200, CHAT_BASE));

  page.use(`${CHAT_BASE}/*`, requirePageSignIn());
  page.post(`${CHAT_BASE}/sign-out`, signOut);

  page.get(CHAT_BASE, (c) => homePage(c));

  page.post(CHAT_BASE, async (c) => {
    const message = (await formField(c, "message"))?.trim() ?? "";
    const after = (await formField(c, "after")) ?? "";
    if (message === "") return homePage(c, { error: "Write a message first." }, 400);
    if (message.length > MAX_MESSAGE_CHARS)
      return homePage(c, { error: `A message may be at most ${MAX_MESSAGE_CHARS} characters; this one has ${message.length}.`, value: message }, 400);
    // A reply continues a finished run's conversation: its transcript, then the new message, in its session.
    let earlier: { messages: unknown[]; session_id?: string } = { messages: [] };
    if (after !== "") {
      const run = await readRun(c, after);
      if (run instanceof Response) return run;
      earlier = { messages: run.messages ?? [], session_id: run.session_id };
    }
    const answer = await apiRequest(c, c.get("principal"), "POST", "/v1/runs", {
      messages: [...earlier.messages, { role: "user", content: message }],
      ...(earlier.session_id === undefined ? {} : { session_id: earlier.session_id }),
    });
    if (answer.status !== 202) return homePage(c, { error: `The run could not start: ${apiErrorText(answer)}`, value: message }, shownStatus(answer.status));
    return c.redirect(runPath((answer.body as RunWire).id), 303);
  });

  page.get(`${CHAT_BASE}/runs/:id`, async (c) => {
    const run = await readRun(c, c.req.param("id"));
    if (run instanceof Response) return run;
    c.header("Content-Security-Policy", CHAT_POLICY);
    return renderPage(c, <RunPage viewer={c.get("viewer")} run={run} />);
  });

  // The agent's question: a choice's button sends `choice`, the text field `answer` (its own words win).
  page.post(`${CHAT_BASE}/runs/:id/answer`, async (c) => {
    const id = c.req.param("id");
    const own = (await formField(c, "answer"))?.trim() ?? "";
    const answer = own === "" ? ((await formField(c, "choice"))?.trim() ?? "") : own;
    const questionId = (await formField(c, "question_id")) ?? "";
    if (answer === "") return errorPage(c, 400, "No answer", "Pick a choice or write an answer first.");
    const reply = await apiRequest(c, c.get("principal"), "POST", `/v1/runs/${encodeURIComponent(id)}/answer`, {
      answer,
      ...(questionId === "" ? {} : { question_id: questionId }),
    });
    // 409: the run no longer waits on this question (answered already, or ended).
    if (reply.status !== 200) return errorPage(c, reply.status === 409 ? 409 : shownStatus(reply.status), "The answer was not taken", apiErrorText(reply));
    return c.redirect(runPath(id), 303);
  });

  page.get(`${CHAT_BASE}/runs/:id/section`, async (c) => {
    const run = await readRun(c, c.req.param("id"));
    if (run instanceof Response) return run;
    return c.html(<RunSection viewer={c.get("viewer")} run={run} />);
  });

  page.get(`${CHAT_BASE}/runs/:id/events`, async (c) => {
    const lastEventId = c.req.header("last-event-id");
    return apiResponse(
      c,
      c.get("principal"),
      "GET",
      `/v1/runs/${encodeURIComponent(c.req.param("id"))}/events`,
      lastEventId === undefined ? {} : { headers: { "last-event-id": lastEventId } },
    );
  });

  chatConnectionRoutes(page);

  // A per-user connection link (src/mcp/federation/connections/): the chat sign-in says who the browser is.
  page.get(`${CONNECT_PATH}/:state`, async (c) => {
    const state = c.req.param("state");
    const flow = await readFlow(c.env.KV, state);
    if (flow?.connectFor === undefined)
      return errorPage(
        c,
        404,
        "Link unknown or expired",
        "This connection link is unknown, was used, or is older than 10 minutes. Ask your agent to call the tool again for a new one.",
      );
    if (flow.connectFor !== c.get("principal").keyId) {
      return errorPage(
        c,
        403,
        "Not your link",
        `This link connects another key's account at '${flow.server}'. Sign in with the key that asked for it, or ask for a new link.`,
      );
    }
    return openFlowLink(c, state, flow);
  });

  page.all(`${CHAT_BASE}/*`, (c) => errorPage(c, 404, "Page not found", `There is no page at ${c.req.path}.`));

  page.onError(function chatError(error, c) {
    console.error("chat page error", error);
    return errorPage(c, 500, "Something went wrong", "The page could not be shown; the failure was logged. Try again in a moment.");
  });
  return page;
}
