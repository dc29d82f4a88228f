/** Key format, digests, and the constant-time comparison every secret check goes through. */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { displayPrefix, generateApiKey } from "../../src/auth/key-format.ts";
import { digestsEqual, hashApiKey } from "../../src/auth/key-hash.ts";
import { createKey } from "../support/create-key.ts";
import { TEST_ADMIN_TOKEN } from "../support/test-env.ts";
import { authApp, call, through } from "./helpers.ts";

describe("keys and digests", () => {
  it("generates tg_ plus 43 base64url characters (256 bits), different every time", () => {
    const keys = new Set(Array.from({ length: 100 }, generateApiKey));
    expect(keys.size).toBe(100);
    for (const key of keys) expect(key).toMatch(/^tg_[A-Za-z0-9_-]{43}$/);
  });

  it("shows only tg_ and six characters of a key", () => {
    expect(displayPrefix("tg_abcdefghijklmnop")).toBe("tg_abcdef");
  });

  it("hashes a key to its SHA-256 hex digest", async () => {
    // The well-known SHA-256 of "abc".
    expect(hashApiKey("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });

  it("compares digests, refusing different lengths without comparing", () => {
    expect(digestsEqual("ab12", "ab12")).toBe(true);
    expect(digestsEqual("ab12", "ab13")).toBe(false);
    expect(digestsEqual("ab12", "ab1")).toBe(false);
  });

  it("tells digests apart wherever they differ, first character to last", () => {
    const digest = hashApiKey("some key");
    for (const at of [0, 1, 31, 62, 63]) {
      const other = `${digest.slice(0, at)}${digest[at] === "0" ? "1" : "0"}${digest.slice(at + 1)}`;
      expect(digestsEqual(digest, other)).toBe(false);
      expect(digestsEqual(other, digest)).toBe(false);
    }
    expect(digestsEqual(digest, hashApiKey("some key"))).toBe(true);
  });

  it("authenticates the admin token and a stored key, and refuses a key one character off either", async () => {
    const app = authApp();
    const created = await createKey({ name: "hash-ct", role: "agent" }, through(app));
    expect((await call(app, "/v1/whoami", { token: TEST_ADMIN_TOKEN })).status).toBe(200);
    expect((await call(app, "/v1/whoami", { token: created.key })).status).toBe(200);
    const offByOne = (key: string) => `${key.slice(0, -1)}${key.endsWith("A") ? "B" : "A"}`;
    expect((await call(app, "/v1/whoami", { token: offByOne(TEST_ADMIN_TOKEN) })).status).toBe(401);
    expect((await call(app, "/v1/whoami", { token: offByOne(created.key) })).status).toBe(401);
    const row = await env.DB.prepare("SELECT key_hash FROM api_keys WHERE id = ?").bind(created.id).first<{ key_hash: string }>();
    expect(row?.key_hash).toBe(hashApiKey(created.key));
  });
});
