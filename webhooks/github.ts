/**
 * GitHub repository webhooks: on any event about a repository (push, issues, pull_request,
 * release, star...) look the repository up with the `github_repo` tool, so its facts are fresh in
 * the audit log and the delivery's results. `ping`, which GitHub sends when the webhook is
 * created, maps to no calls. Signed by GitHub (`X-Hub-Signature-256`), replays stopped by
 * `X-GitHub-Delivery`. Its calls may use the `web` toolset only.
 */
import { z } from "zod";
import { webhookRegistry } from "../src/webhooks/webhook-registry.ts";

const gitHubEvent = () =>
  z.looseObject({
    repository: z
      .looseObject({
        name: z.string(),
        owner: z.looseObject({ login: z.string() }),
      })
      .optional(),
  });

webhookRegistry.register({
  name: "github",
  description: "GitHub repository events: looks the repository up with github_repo (toolset web). Point the repository's webhook at /v1/hooks/github.",
  verify: "github",
  secretEnv: "HOOK_GITHUB_SECRET",
  toolsets: ["web"],
  payload: gitHubEvent,
  map: ({ payload, headers }) => {
    const event = headers.get("x-github-event") ?? "unknown";
    if (event === "ping" || payload.repository === undefined) return [];
    const { owner, name } = payload.repository;
    return [{ id: `${event}_repo`, name: "github_repo", arguments: { owner: owner.login, repo: name } }];
  },
});
