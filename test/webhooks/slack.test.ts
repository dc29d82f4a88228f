/**
 * The shipped Slack webhook (webhooks/slack.ts) through the Worker: the URL handshake Slack sends when
 * the app's Request URL is set, an app_mention that runs the echo tool, Slack's re-signed retry
 * of the same event, and a wrong signature.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { json } from "../support/json.ts";
import { nowSeconds, post, slackHeaders, waitForDelivery, webhookEvents } from "./support.ts";

const mention = (eventId: string, text: string): string =>
  JSON.stringify({ type: "event_callback", team_id: "T1", event_id: eventId, event: { type: "app_mention", text, channel: "C1", user: "U1" } });

async function slackDeliveries(): Promise<number> {
  const row = await env.DB.prepare("SELECT COUNT(*) AS n FROM hook_deliveries WHERE hook = 'slack'").first<{ n: number }>();
  return row?.n ?? 0;
}

describe("the Slack hook", () => {
  it("answers Slack's url_verification with its challenge, and stores no delivery", async () => {
    const before = await slackDeliveries();
    const body = JSON.stringify({ token: "legacy", challenge: "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P", type: "url_verification" });
    const res = await post("slack", body, await slackHeaders(body));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ challenge: "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P" });
    expect(await slackDeliveries()).toBe(before);
    expect((await webhookEvents("slack", 1)).map((e) => e.outcome)).toContain("handshake");
  });

  it("runs echo for an app_mention, and recognises Slack's re-signed retry of the same event", async () => {
    const body = mention("Ev-slack-1", "<@U0APP> hello from slack");
    const first = await post("slack", body, await slackHeaders(body));
    expect(first.status).toBe(202);
    const { delivery_id } = await json<{ delivery_id: string }>(first);
    const view = await waitForDelivery(delivery_id);
    expect(view.status).toBe("done");
    expect(view.results?.[0]).toMatchObject({ id: "mention_echo", tool: "echo", status: "ok" });
    expect(view.results?.[0]?.content).toContain("hello from slack");

    // A retry carries X-Slack-Retry-Num and a new timestamp, so a new signature: the event id decides.
    const retry = await post("slack", body, { ...(await slackHeaders(body, { t: nowSeconds() + 1 })), "x-slack-retry-num": "1" });
    expect(retry.status).toBe(200);
    expect(await json(retry)).toMatchObject({ delivery_id, replay: true });
  });

  it("refuses a body signed with another secret", async () => {
    const body = mention("Ev-slack-forged", "forged");
    const res = await post("slack", body, await slackHeaders(body, { secret: "not-the-signing-secret" }));
    expect(res.status).toBe(401);
  });
});
