/** An approval as the /v1/approvals routes show it (snake_case, as every toolgate response). */
import type { z } from "@hono/zod-openapi";
import type { ApprovalView } from "./approval-view.ts";
import type { ApprovalWireSchema } from "./approval-wire-schema.ts";

export type ApprovalWire = z.infer<typeof ApprovalWireSchema>;

/** The wire form of a view. */
export function toWireApproval(view: ApprovalView): ApprovalWire {
  return {
    id: view.id,
    session_id: view.sessionId,
    tool: view.tool,
    tool_call_id: view.toolCallId,
    arguments: view.arguments,
    arguments_sha256: view.argumentsSha256,
    requested_by: view.requestedBy,
    requested_at: view.requestedAt,
    expires_at: view.expiresAt,
    status: view.status,
    ...(view.scope === undefined ? {} : { scope: view.scope }),
    ...(view.decidedBy === undefined ? {} : { decided_by: view.decidedBy }),
    ...(view.decidedAt === undefined ? {} : { decided_at: view.decidedAt }),
    ...(view.reason === undefined ? {} : { reason: view.reason }),
    ...(view.result === undefined
      ? {}
      : {
          result: { status: view.result.status, error_code: view.result.errorCode, content: view.result.content },
          message: { role: "tool" as const, tool_call_id: view.toolCallId, content: view.result.content },
        }),
  };
}
