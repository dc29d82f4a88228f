/**
 * The zod schema of an approval as the /v1/approvals routes show it, apart from approval-wire.ts:
 * only the routes (loaded at their first request) need it, while the wire form is built on the
 * call path (approval notifications), which must not build schemas at start-up (issue 33).
 */
import { z } from "@hono/zod-openapi";
import { APPROVAL_SCOPES, APPROVAL_STATUSES } from "./approval-view.ts";

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
