import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { availability } from "../../src/registry/availability.ts";
import { registry } from "../../src/registry/registry.ts";
import { dispatchCall } from "../support/dispatch.ts";
import { readInbox } from "../support/inbox.ts";

// The outside network is test/support/upstream.ts, which stands in for api.github.com and keeps
// the comments posted to it. The test config sets GITHUB_COMMENT_TOKEN; GITHUB_TOKEN stays unset.
const withoutTokens = { ...env, GITHUB_COMMENT_TOKEN: undefined } as Env;
const withReadToken = { ...withoutTokens, GITHUB_TOKEN: "ghp_test_read_write" } as Env;

describe("github_comment", () => {
  it("is unavailable without a token, naming both variables, and falls back to GITHUB_TOKEN", async () => {
    const tool = registry.get("github_comment");
    if (tool === undefined) throw new Error("github_comment is not registered (npm run gen)");
    const states = await Promise.all([withoutTokens, withReadToken, env].map((e) => availability.of(tool, e)));
    expect(states.map((s) => s.available)).toEqual([false, true, true]);
    expect(states[0]).toMatchObject({ reason: expect.stringMatching(/GITHUB_COMMENT_TOKEN.*GITHUB_TOKEN/) });
  });

  it("posts the comment once through ctx.fetch and answers its URL", async () => {
    const body = `reply ${crypto.randomUUID()}`;
    const out = await dispatchCall(
      "github_comment",
      { owner: "octo-org", repo: "widgets", issue_number: 12, body },
      { callId: "gc1", sessionId: "s", env: withReadToken },
    );
    expect(out.status).toBe("ok");
    expect(JSON.parse(out.content)).toMatchObject({
      posted: true,
      url: expect.stringMatching(/^https:\/\/github\.com\/octo-org\/widgets\/issues\/12#issuecomment-\d+$/),
    });
    const posted = (await readInbox("github-comments")).filter((m) => m.body.includes(body));
    expect(posted).toHaveLength(1);
    expect(posted[0]?.headers.authorization).toBe("Bearer ghp_test_read_write");
  });

  it("refuses arguments GitHub would not accept before calling out", async () => {
    const out = await dispatchCall("github_comment", { owner: "../etc", repo: "x", issue_number: 0, body: "" }, { callId: "gc2", sessionId: "s", env });
    expect(out.errorCode).toBe("INVALID_ARGUMENTS");
  });
});
