import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { availability } from "../../src/registry/availability.ts";
import { registry } from "../../src/registry/registry.ts";
import { dispatchCall } from "../support/dispatch.ts";

// The outside network is test/support/upstream.ts, which stands in for api.github.com.
const withToken = { ...env, GITHUB_TOKEN: "ghp_test_token" } as Env;

describe("github_repo", () => {
  it("is unavailable without GITHUB_TOKEN and available with it once GitHub answers", async () => {
    const entry = registry.get("github_repo");
    expect(entry).toBeDefined();
    if (entry === undefined) return;
    expect(await availability.of(entry, env)).toEqual({ available: false, reason: "missing required environment variable: GITHUB_TOKEN" });
    expect(await availability.of(entry, withToken)).toMatchObject({ available: true });
  });

  it("looks a repository up through ctx.fetch", async () => {
    const out = await dispatchCall("github_repo", { owner: "cloudflare", repo: "workers-sdk" }, { callId: "g1", sessionId: "s", env: withToken });
    expect(out.status).toBe("ok");
    expect(JSON.parse(out.content)).toMatchObject({ found: true, full_name: "cloudflare/workers-sdk", stars: 3000, license: "MIT" });
  });

  it("says so when the repository does not exist", async () => {
    const out = await dispatchCall("github_repo", { owner: "cloudflare", repo: "nope" }, { callId: "g2", sessionId: "s", env: withToken });
    expect(JSON.parse(out.content)).toEqual({ found: false, message: "No public repository cloudflare/nope." });
  });

  it("refuses names GitHub would not accept before calling out", async () => {
    const out = await dispatchCall("github_repo", { owner: "../etc", repo: "x" }, { callId: "g3", sessionId: "s", env: withToken });
    expect(out.errorCode).toBe("INVALID_ARGUMENTS");
  });
});
