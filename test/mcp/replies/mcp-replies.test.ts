import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";

const replies = (id: string) => env.MCP_REPLIES.get(env.MCP_REPLIES.idFromName(id));

describe("McpReplies", () => {
  it("hands the asking key's answer to the waiting call", async () => {
    const object = replies(`r-${crypto.randomUUID()}`);
    const waiting = object.wait("key-a", 5_000);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await object.deliver("key-a", { result: { action: "accept" } })).toBe(true);
    expect(await waiting).toEqual({ result: { action: "accept" } });
  });

  it("refuses an answer from another key and keeps waiting for the right one", async () => {
    const object = replies(`r-${crypto.randomUUID()}`);
    const waiting = object.wait("key-a", 5_000);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await object.deliver("key-b", { result: "forged" })).toBe(false);
    expect(await object.deliver("key-a", { error: { code: -1, message: "declined" } })).toBe(true);
    expect(await waiting).toEqual({ error: { code: -1, message: "declined" } });
  });

  it("keeps an answer that outran its asker, for the asking key only", async () => {
    const early = replies(`r-${crypto.randomUUID()}`);
    expect(await early.deliver("key-a", { result: 1 })).toBe(true);
    expect(await early.wait("key-a", 1_000)).toEqual({ result: 1 });

    const stolen = replies(`r-${crypto.randomUUID()}`);
    await stolen.deliver("key-b", { result: 2 });
    expect(await stolen.wait("key-a", 1_000)).toBeUndefined();
  });

  it("gives up after the timeout", async () => {
    expect(await replies(`r-${crypto.randomUUID()}`).wait("key-a", 50)).toBeUndefined();
  });
});
