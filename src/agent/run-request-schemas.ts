/**
 * The request schemas POST /v1/runs and POST /v1/chat/completions share. Apart from start-run.ts
 * because that module is imported at start-up (a schedule's Durable Object, a webhook delivery
 * and delegate_task start runs), and these schemas serve only the two lazily loaded routes.
 */
import { z } from "@hono/zod-openapi";

/** An OpenAI chat message, kept as sent (the model's own fields pass through). */
export const MessageSchema = z.looseObject({ role: z.enum(["system", "developer", "user", "assistant", "tool"]) }).openapi("ChatMessage");

/** A function tool the client declares: its calls come back to the client, unexecuted. */
export const ClientToolSchema = z
  .looseObject({ type: z.literal("function"), function: z.looseObject({ name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/) }) })
  .openapi("ClientTool");

export const SessionIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9._:-]{1,128}$/, "must be 1-128 characters of letters, digits, '.', '_', ':' or '-'")
  .openapi({ description: "Groups runs of one conversation: approvals, grants and session workspaces are per session. Generated when absent." });
