/**
 * Sealing secrets at rest (src/crypto/aes-gcm.ts): a sealed value opens only under the secret and
 * the context (its KV key's name) it was sealed with, and not at all once a byte of it changes.
 */
import { describe, expect, it } from "vitest";
import { open, seal } from "../../src/crypto/aes-gcm.ts";

const SECRET = "0123456789abcdef0123456789abcdef";
const CONTEXT = "mcp:oauth:github";

describe("aes-gcm seal and open", () => {
  it("opens what it sealed, and seals the same text differently each time (a fresh IV)", async () => {
    const first = await seal(SECRET, CONTEXT, "access-token-1");
    const second = await seal(SECRET, CONTEXT, "access-token-1");
    expect(await open(SECRET, CONTEXT, first)).toBe("access-token-1");
    expect(first.v).toBe(1);
    expect(first.iv).not.toBe(second.iv);
    expect(first.data).not.toBe(second.data);
    expect(first.data).not.toContain("access-token");
  });

  it("does not open under another secret", async () => {
    const sealed = await seal(SECRET, CONTEXT, "access-token-2");
    expect(await open(`${SECRET}x`, CONTEXT, sealed)).toBeUndefined();
  });

  it("does not open under another context: a value copied to another KV key is refused", async () => {
    const sealed = await seal(SECRET, CONTEXT, "access-token-3");
    expect(await open(SECRET, "mcp:oauth:other", sealed)).toBeUndefined();
  });

  it("does not open a tampered or malformed value, and never throws", async () => {
    const sealed = await seal(SECRET, CONTEXT, "access-token-4");
    const flipped = `${sealed.data.slice(0, 4)}${sealed.data[4] === "A" ? "B" : "A"}${sealed.data.slice(5)}`;
    expect(await open(SECRET, CONTEXT, { ...sealed, data: flipped })).toBeUndefined();
    expect(await open(SECRET, CONTEXT, { ...sealed, iv: "not base64!" })).toBeUndefined();
    expect(await open(SECRET, CONTEXT, { ...sealed, data: "" })).toBeUndefined();
  });
});
