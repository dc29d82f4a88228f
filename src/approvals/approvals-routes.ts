/**
 * `/v1/approvals`: approvers list and decide approvals; the agent that asked reads (and
 * long-polls) the outcome of its own. Every read and decision of one approval goes through the
 * session's Durable Object, which only knows its own session's approvals.
 */
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { MAX_REASON_CHARS } from "../audit/audit-record.ts";
import { requireRole } from "../auth/require-role.ts";
import { failureResponse } from "../http/request-failure.ts";
import { errorResponses } from "../http/schemas.ts";
import type { AppEnv } from "../http/types.ts";
import { DEFAULT_LIST_LIMIT, MAX_LIST_LIMIT } from "./approval-index.ts";
import { MAX_WAIT_SECONDS } from "./approval-url.ts";
import { APPROVAL_SCOPES, APPROVAL_STATUSES, type ApprovalView } from "./approval-view.ts";
import { toWireApproval } from "./approval-wire.ts";
import { ApprovalWireSchema } from "./approval-wire-schema.ts";
import { decideApproval, decideApprovalInSession, getApproval, getApprovalInSession, listApprovals } from "./approvals.ts";

const SessionQuery = z
  .string()
  .regex(/^[A-Za-z0-9._:-]{1,128}$/, "must be a session id as the tool-calls response returned it")
  .optional()
  .openapi({ description: "The session the approval belongs to. When given, an approval of another session is not found." });

const IdParam = z.object({
  id: z
    .string()
    .min(1)
    .max(64)
    .openapi({ param: { name: "id", in: "path" }, example: "5f0c6d1e-..." }),
});

const ConflictSchema = z
  .object({ error: z.string(), error_code: z.literal("APPROVAL_ALREADY_DECIDED"), suggestion: z.string(), approval: ApprovalWireSchema })
  .openapi("ApprovalConflict");

const listRoute = createRoute({
  method: "get",
  path: "/v1/approvals",
  summary: "List approvals (approver or admin)",
  request: {
    query: z.object({
      status: z.enum(APPROVAL_STATUSES).optional(),
      session_id: SessionQuery,
      limit: z.coerce
        .number()
        .int()
        .min(1)
        .max(MAX_LIST_LIMIT)
        .optional()
        .openapi({ description: `Default ${DEFAULT_LIST_LIMIT}.` }),
    }),
  },
  responses: {
    200: {
      description: "Newest first.",
      content: { "application/json": { schema: z.object({ approvals: z.array(ApprovalWireSchema) }).openapi("ApprovalList") } },
    },
    ...errorResponses(400, 403),
  },
});

const getRoute = createRoute({
  method: "get",
  path: "/v1/approvals/{id}",
  summary: "Read an approval, waiting for its outcome",
  description: `Readable by the key that asked and by approvers and admins. With \`wait\` (0-${MAX_WAIT_SECONDS} s) it answers as soon as the approval settles (denied, expired, or approved and run), or when the wait is over. Once settled, \`message\` is the tool message to give the model.`,
  request: {
    params: IdParam,
    query: z.object({
      session_id: SessionQuery,
      wait: z.coerce.number().int().min(0).max(MAX_WAIT_SECONDS).optional().openapi({ description: "Seconds to wait for a decision (long poll)." }),
    }),
  },
  responses: {
    200: { description: "The approval as it is now.", content: { "application/json": { schema: ApprovalWireSchema } } },
    ...errorResponses(400, 404),
  },
});

const decideRoute = createRoute({
  method: "post",
  path: "/v1/approvals/{id}",
  summary: "Decide an approval (approver or admin)",
  description:
    "The first decision wins; a later one gets 409 with the current state. Approving runs the call once, through the normal pipeline, before answering; `scope: session` lets later calls of this tool in this session run without asking.",
  request: {
    params: IdParam,
    query: z.object({ session_id: SessionQuery }),
    body: {
      required: true,
      content: {
        "application/json": {
          schema: z
            .object({
              decision: z.enum(["approve", "deny"]),
              scope: z
                .enum(APPROVAL_SCOPES)
                .default("once")
                .openapi({ description: "`once`: this exact call; `session`: this tool, any arguments, for the rest of the session." }),
              reason: z.string().max(MAX_REASON_CHARS).optional().openapi({ description: "Shown to the model on a denial." }),
            })
            .openapi("ApprovalDecision"),
        },
      },
    },
  },
  responses: {
    200: { description: "The decided approval (after an approval, with the call's result).", content: { "application/json": { schema: ApprovalWireSchema } } },
    409: { description: "Already decided or expired; `approval` is the current state.", content: { "application/json": { schema: ConflictSchema } } },
    ...errorResponses(400, 403, 404),
  },
});

/** Only the asking key and approvers may read an approval; to anyone else it does not exist. */
function mayRead(c: Context<AppEnv>, approval: ApprovalView): boolean {
  const principal = c.get("principal");
  return principal.role !== "agent" || principal.keyId === approval.requestedBy;
}

export const approvalsRoutes = new OpenAPIHono<AppEnv>();
approvalsRoutes.use("/v1/approvals", requireRole("approver", "admin"));
approvalsRoutes.on("POST", "/v1/approvals/*", requireRole("approver", "admin"));

approvalsRoutes.openapi(listRoute, async (c) => {
  const { status, session_id, limit } = c.req.valid("query");
  const approvals = await listApprovals(c.env, {
    ...(status === undefined ? {} : { status }),
    ...(session_id === undefined ? {} : { sessionId: session_id }),
    ...(limit === undefined ? {} : { limit }),
  });
  return c.json({ approvals: approvals.map(toWireApproval) }, 200);
});

approvalsRoutes.openapi(getRoute, async (c) => {
  const { id } = c.req.valid("param");
  const { session_id, wait = 0 } = c.req.valid("query");
  // Check who may read before waiting, so nobody else can hold a connection open on it.
  const now = session_id === undefined ? await getApproval(c.env, id) : await getApprovalInSession(c.env, session_id, id);
  if (now === undefined || !mayRead(c, now)) return failureResponse(c, { kind: "unknown_approval", id });
  const settled = wait === 0 ? now : ((await getApprovalInSession(c.env, now.sessionId, id, wait * 1000)) ?? now);
  return c.json(toWireApproval(settled), 200);
});

approvalsRoutes.openapi(decideRoute, async (c) => {
  const { id } = c.req.valid("param");
  const { session_id } = c.req.valid("query");
  const body = c.req.valid("json");
  const input = {
    id,
    decision: body.decision,
    scope: body.scope,
    ...(body.reason === undefined ? {} : { reason: body.reason }),
    decidedBy: c.get("principal"),
  };
  const result = session_id === undefined ? await decideApproval(c.env, input) : await decideApprovalInSession(c.env, session_id, input);
  if (result.ok) return c.json(toWireApproval(result.approval), 200);
  switch (result.kind) {
    case "not_found":
      return failureResponse(c, { kind: "unknown_approval", id });
    case "forbidden":
      return failureResponse(c, { kind: "forbidden", required: ["approver", "admin"], role: c.get("principal").role });
    case "conflict":
      return failureResponse(c, { kind: "approval_decided", id, status: result.approval.status, approval: toWireApproval(result.approval) });
  }
});
