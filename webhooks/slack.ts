/**
 * Slack's Events API: when someone mentions the app (`app_mention`), echo the message's text with
 * the `echo` tool, so a mention leaves a call in the delivery's results and the audit log; a start
 * for webhooks that do real work on mentions. Signed with the app's signing secret
 * (`X-Slack-Signature`, `v0`), the `url_verification` Slack sends when the Request URL is set is
 * answered with its challenge, and Slack's retries are recognised by the event's `event_id`.
 * Its calls may use the `core` toolset only.
 */
import { z } from "zod";
import { webhookRegistry } from "../src/webhooks/webhook-registry.ts";

const slackPayload = () =>
  z.union([
    z.object({ type: z.literal("url_verification"), challenge: z.string().max(1_000) }),
    z.looseObject({
      type: z.literal("event_callback"),
      event_id: z.string(),
      event: z.looseObject({ type: z.string(), text: z.string().optional(), channel: z.string().optional(), user: z.string().optional() }),
    }),
  ]);

webhookRegistry.register({
  name: "slack",
  description: "Slack Events API: echoes the text of each app_mention with the echo tool (toolset core). Set the app's Request URL to /v1/hooks/slack.",
  verify: "slack",
  secretEnv: "HOOK_SLACK_SECRET",
  toolsets: ["core"],
  payload: slackPayload,
  handshake: ({ payload }) => (payload.type === "url_verification" ? { challenge: payload.challenge } : undefined),
  deliveryId: ({ payload }) => (payload.type === "event_callback" ? payload.event_id : undefined),
  map: ({ payload }) => {
    if (payload.type !== "event_callback" || payload.event.type !== "app_mention") return [];
    return [{ id: "mention_echo", name: "echo", arguments: { text: payload.event.text ?? "" } }];
  },
});
