/**
 * The generic webhook: any sender that can sign a body (a CI job, a cron elsewhere, another
 * service) posts tool calls in OpenAI's `tool_calls` shape and toolgate runs them in the
 * background. Signed with toolgate's own scheme (`X-Toolgate-Signature-256` over
 * "<timestamp>.<body>", `X-Toolgate-Timestamp`, optional `X-Toolgate-Delivery`). Its calls may
 * use the `core` toolset only. If HOOK_GENERIC_CALLBACK_URL is set, the results are POSTed
 * there, signed the same way.
 */
import { z } from "zod";
import { toolCallSchemas } from "../src/formats/tool-calls.ts";
import { webhookRegistry } from "../src/webhooks/webhook-registry.ts";

webhookRegistry.register({
  name: "generic",
  description: 'Runs the tool calls in the body ({"tool_calls": [...]}, OpenAI shape) with the core toolset.',
  verify: "hmac",
  secretEnv: "HOOK_GENERIC_SECRET",
  toolsets: ["core"],
  payload: () => z.object({ tool_calls: z.array(toolCallSchemas().OpenAIToolCallSchema).max(1_000) }),
  map: ({ payload }) => payload.tool_calls.map((call) => ({ id: call.id, name: call.function.name, arguments: call.function.arguments })),
  callbackUrl: (env) => {
    const value: unknown = Reflect.get(env, "HOOK_GENERIC_CALLBACK_URL");
    return typeof value === "string" ? value : undefined;
  },
});
