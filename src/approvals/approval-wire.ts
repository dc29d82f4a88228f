/** An approval as the /v1/approvals routes show it (snake_case, as every toolgate response). */
import { z } from "@hono/zod-openapi";
import { APPROVAL_SCOPES, APPROVAL_STATUSES, type ApprovalView } from "./approval-view.ts";

export const ApprovalWireSchema = z
  .object({
    id: z.string(),
    session_id: z.string(),
    tool: z.string(),
    tool_call_id: z.string(),
    arguments: z.record(z.string(), z.unknown()).openapi({ description: "The final arguments, secrets redacted." }),
    arguments_sha256: z.string().openapi({ description: "SHA-256 of the canonical JSON of the redacted arguments (as in the audit log)." }),
    requested_by: z.string().openapi({ description: "Key id of the caller." }),
    requested_at: z.number().int().openapi({ description: "Epoch ms." }),
    expires_at: z.number().int().openapi({ description: "Epoch ms; undecided by then, it expires." }),
    status: z.enum(APPROVAL_STATUSES),
    scope: z.enum(APPROVAL_SCOPES).optional(),
    decided_by: z.string().optional(),
    decided_at: z.number().int().optional(),
    reason: z.string().optional(),
    result: z
      .object({ status: z.enum(["ok", "error"]), error_code: z.string().nullable(), content: z.string() })
      .optional()
      .openapi({ description: "Once settled: the approved call's result, or the APPROVAL_DENIED / APPROVAL_EXPIRED envelope." }),
    message: z
      .object({ role: z.literal("tool"), tool_call_id: z.string(), content: z.string() })
      .optional()
      .openapi({
        description: "Once settled: the tool message to append to the conversation (OpenAI shape; its content is the Anthropic tool_result content too).",
      }),
  })
  .openapi("Approval");

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
