/**
 * An async tool that calls out: it needs GITHUB_TOKEN (hidden while unset) and an availability
 * check that GitHub's API answers. The rate-limit endpoint is used for the probe because GitHub
 * does not count calls to it against the quota.
 */
import { z } from "zod";
import { ToolFailureError } from "../src/errors/tool-failure.ts";
import { registry } from "../src/registry/registry.ts";
import { githubGet, repositoryFields } from "./lib/github-api.ts";

const PROBE_TIMEOUT_MS = 3_000;
const CALL_TIMEOUT_MS = 10_000;

function token(env: Env): string {
  const value: unknown = Reflect.get(env, "GITHUB_TOKEN");
  return typeof value === "string" ? value : "";
}

registry.register({
  name: "github_repo",
  toolset: "web",
  emoji: "🐙",
  readOnly: true,
  example: { owner: "cloudflare", repo: "workers-sdk" },
  worstInputs: [
    { name: "the longest names the patterns allow", args: () => ({ owner: "o".repeat(39), repo: "r".repeat(100) }) },
    { name: "1 MiB names the patterns refuse", args: () => ({ owner: "o".repeat(1024 * 1024), repo: "r".repeat(1024 * 1024) }) },
  ],
  requiresEnv: ["GITHUB_TOKEN"],
  schema: () =>
    z.object({
      ...repositoryFields(),
    }),
  description: "Looks up a public GitHub repository: description, stars, forks, open issues, default branch, licence and last push.",
  check: async (env) => {
    const res = await githubGet(fetch, "/rate_limit", token(env), AbortSignal.timeout(PROBE_TIMEOUT_MS));
    await res.body?.cancel();
    return res.ok;
  },
  timeoutMs: 20_000,
  handler: async ({ owner, repo }, { env, fetch: upstreamFetch }) => {
    // Its own timeout, shorter than the call's deadline, so a hung socket is released and the
    // gateway can still retry within the deadline.
    const res = await githubGet(upstreamFetch, `/repos/${owner}/${repo}`, token(env), AbortSignal.timeout(CALL_TIMEOUT_MS));
    if (res.status === 404) return { found: false, message: `No public repository ${owner}/${repo}.` };
    if (!res.ok) {
      throw new ToolFailureError({ kind: "upstream", name: "github_repo", status: res.status, detail: (await res.text()).slice(0, 300) });
    }
    const data = (await res.json()) as Record<string, unknown>;
    const license = data.license as { spdx_id?: string } | null | undefined;
    return {
      found: true,
      full_name: data.full_name,
      description: data.description,
      stars: data.stargazers_count,
      forks: data.forks_count,
      open_issues: data.open_issues_count,
      default_branch: data.default_branch,
      license: license?.spdx_id ?? null,
      pushed_at: data.pushed_at,
      url: data.html_url,
    };
  },
});
