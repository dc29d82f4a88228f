/** @jsxImportSource hono/jsx */
/**
 * The approvals web page (`/approvals`), server-rendered with hono/jsx: plain forms and
 * redirects, no script. Mounted by src/http/app.ts; the agent-facing API is /v1/approvals.
 *
 * | Route | Page |
 * |---|---|
 * | GET /approvals | pending approvals with decision forms, recent decisions (or sign-in) |
 * | GET /approvals/{id} | one approval |
 * | GET /approvals/sessions/{id} | a session's approvals and audit trail |
 * | POST /approvals/{id}/decision | approve once, approve for the session, or deny with a reason |
 * | POST /approvals/sign-in, /approvals/sign-out | the page sign-in |
 */
import { type Context, Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { ApprovalView } from "../approvals/approval-view.ts";
import { decideApproval, getApproval, listApprovals } from "../approvals/approvals.ts";
import { listAudit } from "../audit/list-audit.ts";
import { ApprovalCard } from "./approval-card.tsx";
import { ApprovalsPage } from "./approvals-page.tsx";
import { ErrorPage } from "./error-page.tsx";
import { keyNamesOf } from "./key-names.ts";
import { Layout } from "./layout.tsx";
import { formField, pageAuth } from "./page-auth.tsx";
import { PAGE_CSS } from "./page-css.ts";
import type { PageEnv } from "./page-env.ts";
import { APPROVALS_SITE } from "./page-site.ts";
import { renderPage } from "./render-page.ts";
import { securityHeaders } from "./security-headers.ts";
import { SessionTrailPage } from "./session-trail-page.tsx";

/** Pending approvals shown at once; an older backlog waits for these to be decided. */
const PENDING_SHOWN = 100;
/** Recent decisions shown, newest first. */
const DECIDED_SHOWN = 20;
/** Audit records shown on a session's page. */
const TRAIL_SHOWN = 100;
/** A denial's reason goes to the model verbatim; long enough for a sentence or two. */
export const MAX_REASON_CHARS = 500;
/** Forms carry a key, a token and a reason: a few hundred bytes. */
const MAX_FORM_BYTES = 16 * 1024;

const DECISIONS = {
  approve_once: { decision: "approve", scope: "once" },
  approve_session: { decision: "approve", scope: "session" },
  deny: { decision: "deny", scope: "once" },
} as const;
const isDecision = (value: string | undefined): value is keyof typeof DECISIONS => value !== undefined && Object.hasOwn(DECISIONS, value);

type PageContext = Context<PageEnv>;

function errorPage(c: PageContext, status: 400 | 403 | 404 | 409 | 413 | 500, title: string, message: string) {
  return renderPage(c, <ErrorPage title={title} message={message} viewer={c.get("viewer")} />, status);
}

// The newest decisions across the three decided states (the index lists one state at a time).
async function recentDecisions(env: Env): Promise<ApprovalView[]> {
  const lists = await Promise.all((["approved", "denied", "expired"] as const).map((status) => listApprovals(env, { status, limit: DECIDED_SHOWN })));
  const when = (a: ApprovalView) => a.decidedAt ?? a.expiresAt;
  return lists
    .flat()
    .sort((a, b) => when(b) - when(a))
    .slice(0, DECIDED_SHOWN);
}

/** The page's routes, for `app.route("/", approvalsPageRoutes())`. */
export function approvalsPageRoutes(): Hono<PageEnv> {
  const page = new Hono<PageEnv>();
  const { requirePageSignIn, requireSameOrigin, signIn, signInResponse, signOut } = pageAuth(APPROVALS_SITE);
  // "/approvals/*" matches "/approvals" itself too, so each middleware is registered once.
  page.use("/approvals/*", securityHeaders());
  page.post(
    "/approvals/*",
    bodyLimit({ maxSize: MAX_FORM_BYTES, onError: (c) => errorPage(c, 413, "Form too large", `A form may send at most ${MAX_FORM_BYTES} bytes.`) }),
  );
  page.post("/approvals/*", requireSameOrigin());

  // Public: the stylesheet and the sign-in form's target.
  page.get("/approvals/page.css", (c) => c.body(PAGE_CSS, 200, { "Content-Type": "text/css; charset=utf-8", "Cache-Control": "public, max-age=300" }));
  page.post("/approvals/sign-in", signIn);
  page.get("/approvals/sign-in", (c) => signInResponse(c, 200, "/approvals"));

  // Everything below needs a signed-in approver (and, for a POST, the sign-in's CSRF token).
  page.use("/approvals/*", requirePageSignIn());
  page.post("/approvals/sign-out", signOut);

  page.get("/approvals", async (c) => {
    const now = Date.now();
    const decidedId = c.req.query("decided");
    const [pending, decided, justDecided] = await Promise.all([
      listApprovals(c.env, { status: "pending", limit: PENDING_SHOWN }),
      recentDecisions(c.env),
      decidedId === undefined ? undefined : getApproval(c.env, decidedId),
    ]);
    const names = await keyNamesOf(c.env.DB, [...pending, ...decided, ...(justDecided === undefined ? [] : [justDecided])]);
    return renderPage(c, <ApprovalsPage viewer={c.get("viewer")} pending={pending} decided={decided} names={names} now={now} justDecided={justDecided} />);
  });

  page.get("/approvals/sessions/:sessionId", async (c) => {
    const sessionId = c.req.param("sessionId");
    const [approvals, trail] = await Promise.all([
      listApprovals(c.env, { sessionId, limit: PENDING_SHOWN }),
      listAudit(c.env.DB, { sessionId }, { limit: TRAIL_SHOWN }),
    ]);
    const names = await keyNamesOf(c.env.DB, approvals, trail.records);
    const viewer = c.get("viewer");
    return renderPage(
      c,
      <SessionTrailPage
        viewer={viewer}
        sessionId={sessionId}
        approvals={approvals}
        trail={trail.records}
        more={trail.next !== null}
        names={names}
        now={Date.now()}
      />,
    );
  });

  page.get("/approvals/:id", async (c) => {
    const approval = await getApproval(c.env, c.req.param("id"));
    if (approval === undefined)
      return errorPage(c, 404, "No such approval", `No approval has the id "${c.req.param("id")}". It may belong to a session that ended.`);
    const names = await keyNamesOf(c.env.DB, [approval]);
    const viewer = c.get("viewer");
    return renderPage(
      c,
      <Layout title={`Approval for ${approval.tool}`} viewer={viewer}>
        <h2>Approval {approval.id}</h2>
        <ApprovalCard approval={approval} names={names} now={Date.now()} csrfToken={viewer.csrfToken} />
      </Layout>,
    );
  });

  page.post("/approvals/:id/decision", async (c) => {
    const id = c.req.param("id");
    const choice = await formField(c, "decision");
    if (!isDecision(choice)) return errorPage(c, 400, "Unknown decision", "Choose Approve once, Approve for this session, or Deny.");
    const reason = (await formField(c, "reason"))?.trim() ?? "";
    if (choice === "deny" && reason === "")
      return errorPage(
        c,
        400,
        "A reason is needed",
        "Denying a call needs a reason: the agent's model reads it to decide what to do instead. Go back and type one.",
      );
    if (reason.length > MAX_REASON_CHARS)
      return errorPage(c, 400, "Reason too long", `A reason may have at most ${MAX_REASON_CHARS} characters; this one has ${reason.length}.`);

    const { decision, scope } = DECISIONS[choice];
    const outcome = await decideApproval(c.env, { id, decision, scope, ...(reason === "" ? {} : { reason }), decidedBy: c.get("principal") });
    if (outcome.ok) return c.redirect(`/approvals?decided=${encodeURIComponent(id)}`, 303);
    switch (outcome.kind) {
      case "not_found":
        return errorPage(c, 404, "No such approval", `No approval has the id "${id}". It may belong to a session that ended.`);
      case "forbidden":
        return errorPage(c, 403, "Not allowed", "This key may not decide this approval.");
      case "conflict": {
        const names = await keyNamesOf(c.env.DB, [outcome.approval]);
        return renderPage(
          c,
          <Layout title="Already decided" viewer={c.get("viewer")}>
            <h2>Already decided</h2>
            <p class="notice error" role="alert">
              This approval was already {outcome.approval.status}, so your decision was not applied. Its current state:
            </p>
            <ApprovalCard approval={outcome.approval} names={names} now={Date.now()} />
          </Layout>,
          409,
        );
      }
    }
  });

  page.all("/approvals/*", (c) => errorPage(c, 404, "Page not found", `There is no page at ${c.req.path}.`));

  page.onError(function pageError(error, c) {
    console.error("approvals page error", error);
    return errorPage(c, 500, "Something went wrong", "The page could not be shown; the failure was logged. Try again in a moment.");
  });
  return page;
}
