/**
 * A helper module: it registers nothing, so discovery skips it (tools that need it import it).
 * GitHub's REST API wants a User-Agent and accepts a token as a Bearer credential.
 */

import { z } from "zod";

export const GITHUB_API = "https://api.github.com";

/**
 * A repository's owner and name as the tools take them, checked by GitHub's own name rules; a
 * function, so they are built inside each tool's schema function, at its first use.
 */
export const repositoryFields = () => ({
  owner: z
    .string()
    .regex(/^[A-Za-z0-9-]{1,39}$/, "must be a GitHub user or organisation name")
    .describe("Owner, for example 'cloudflare'."),
  repo: z
    .string()
    .regex(/^[A-Za-z0-9._-]{1,100}$/, "must be a repository name")
    .describe("Repository, for example 'workers-sdk'."),
});

/**
 * GETs a GitHub API path with the deployment's token. Calls pass their `ctx.fetch` (deadline,
 * retries, the host's circuit breaker); the availability probe passes the plain fetch.
 */
export function githubGet(fetcher: typeof fetch, path: string, token: string, signal: AbortSignal): Promise<Response> {
  return fetcher(`${GITHUB_API}${path}`, { headers: githubHeaders(token), signal });
}

/** POSTs JSON to a GitHub API path with the deployment's token, through the call's `ctx.fetch`. */
export function githubPost(fetcher: typeof fetch, path: string, token: string, body: unknown, signal: AbortSignal): Promise<Response> {
  return fetcher(`${GITHUB_API}${path}`, {
    method: "POST",
    headers: { ...githubHeaders(token), "content-type": "application/json" },
    body: JSON.stringify(body),
    signal,
  });
}

function githubHeaders(token: string): Record<string, string> {
  return {
    accept: "application/vnd.github+json",
    authorization: `Bearer ${token}`,
    "user-agent": "toolgate",
    "x-github-api-version": "2022-11-28",
  };
}
