/**
 * Posts a comment on a GitHub issue or pull request: the reply of the `github-mention` webhook's
 * runs (webhooks/github-mention.ts), and a tool any key whose toolsets include `github` may use.
 * It needs a token that may write issues: GITHUB_COMMENT_TOKEN, or GITHUB_TOKEN when that is unset
 * (hidden while neither is set). A token of its own lets GITHUB_TOKEN, which github_repo reads
 * with, stay read-only.
 *
 * Not `risky`: a comment is public, signed by the token's account and can be deleted, and a
 * webhook's reply must not wait on a person by default. An operator who wants one in the loop
 * adds `github_comment` to APPROVAL_REQUIRED_FOR; a webhook's reply then waits as
 * `awaiting_approval`, at most APPROVAL_TTL_SECONDS, and calls back once it is decided.
 * Never retried by the gateway: a POST that timed out may still have posted.
 */
import { z } from "zod";
import { ToolFailureError } from "../src/errors/tool-failure.ts";
import { secretValue } from "../src/net/secret-headers.ts";
import { registry } from "../src/registry/registry.ts";
import { githubPost, repositoryFields } from "./lib/github-api.ts";

const CALL_TIMEOUT_MS = 10_000;

/** The first of the two tokens that is set; blank counts as unset, as for every secret (secretValue). */
function token(env: Env): string {
  return (secretValue(env, "GITHUB_COMMENT_TOKEN") ?? secretValue(env, "GITHUB_TOKEN") ?? "").trim();
}

registry.register({
  name: "github_comment",
  toolset: "github",
  emoji: "💬",
  requiresAnyEnv: ["GITHUB_COMMENT_TOKEN", "GITHUB_TOKEN"],
  writes: (args) => [`github:${String(args.owner)}/${String(args.repo)}#${String(args.issue_number)}`],
  retry: { maxAttempts: 1 },
  example: { owner: "octo-org", repo: "octo-repo", issue_number: 1, body: "Thanks, looking into it." },
  worstInputs: [
    {
      name: "a comment at the 65,536-character cap on the longest names",
      args: () => ({ owner: "o".repeat(39), repo: "r".repeat(100), issue_number: Number.MAX_SAFE_INTEGER, body: "`x` **y** ".repeat(6_553) }),
    },
    { name: "a 1 MiB owner the name pattern refuses", args: () => ({ owner: "o".repeat(1024 * 1024), repo: "r", issue_number: 1, body: "x" }) },
  ],
  schema: () =>
    z.object({
      ...repositoryFields(),
      issue_number: z.number().int().min(1).describe("The issue or pull request number."),
      body: z.string().min(1).max(65_536).describe("The comment, in GitHub Markdown (at most 65,536 characters)."),
    }),
  description: "Posts a comment on a GitHub issue or pull request and returns its URL.",
  timeoutMs: 20_000,
  handler: async ({ owner, repo, issue_number: issue, body }, { env, fetch: upstreamFetch }) => {
    const res = await githubPost(upstreamFetch, `/repos/${owner}/${repo}/issues/${issue}/comments`, token(env), { body }, AbortSignal.timeout(CALL_TIMEOUT_MS));
    if (res.status === 404)
      throw new ToolFailureError({
        kind: "upstream",
        name: "github_comment",
        status: 404,
        detail: `No issue ${owner}/${repo}#${issue} that the token may comment on.`,
      });
    if (!res.ok) throw new ToolFailureError({ kind: "upstream", name: "github_comment", status: res.status, detail: (await res.text()).slice(0, 300) });
    const data = (await res.json()) as Record<string, unknown>;
    return { posted: true, id: data.id, url: data.html_url };
  },
});
