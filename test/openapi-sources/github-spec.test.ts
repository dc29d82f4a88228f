/**
 * A spec nobody here wrote, at full size: GitHub's REST description (@octokit/openapi, 13 MB,
 * about a thousand operations), added as a runtime source over HTTP as an admin would, then
 * found through tool_search and the deferred listing, and called against a GitHub stand-in.
 */
import { describe, expect, it } from "vitest";
import { api } from "../support/api.ts";
import { json } from "../support/json.ts";
import { openaiCall } from "../support/tool-calls.ts";

interface Status {
  tools: string[];
  pinned: { operations: number; problems: string[]; spec_version: string; title: string };
}
interface ToolList {
  tools: { name: string }[];
  deferred?: number;
}
interface CallResults {
  results: { status: string; error_code: string | null; message: { content: string } }[];
}

describe("GitHub's REST description as a runtime source", () => {
  it("becomes a thousand tools that tool_search finds and the deferred listing holds back", { timeout: 120_000 }, async () => {
    const added = await api("/v1/openapi-sources", {
      body: { name: "github", spec: { url: "http://specs.upstream.test/github.json" }, base_url: "https://api.github.com" },
    });
    expect(added.status).toBe(201);
    const status = await json<Status>(added);
    expect(status.pinned.spec_version).toMatch(/^3\./);
    // 1,223 operations in @octokit/openapi 23.0.2; one (a binary upload) is skipped with its reason.
    expect(status.pinned.operations).toBeGreaterThan(900);
    expect(status.pinned.problems.join("\n")).toContain("application/octet-stream");
    expect(status.tools.length).toBe(status.pinned.operations);
    expect(status.tools).toEqual(expect.arrayContaining(["github__issues_create", "github__repos_get"]));

    const listed = await json<ToolList>(await api("/v1/tools?toolset=api-github&format=mcp"));
    expect(listed.tools.length).toBe(status.tools.length);
    const deferred = await json<ToolList>(await api("/v1/tools?format=mcp&defer=true"));
    expect(deferred.tools.map((tool) => tool.name)).not.toContain("github__issues_create");
    expect(deferred.deferred).toBeGreaterThanOrEqual(status.tools.length);

    const search = await api("/v1/tool-calls", {
      body: { tool_calls: [openaiCall("s1", "tool_search", { query: "create an issue in a repository", limit: 10 })] },
    });
    const [found] = (await json<CallResults>(search)).results;
    expect(found?.status).toBe("ok");
    const names = (JSON.parse(found?.message.content ?? "{}") as { tools: { function: { name: string } }[] }).tools.map((tool) => tool.function.name);
    expect(names).toContain("github__issues_create");

    // The GitHub stand-in knows one repository (test/support/upstream.ts); any other is GitHub's 404.
    const call = await api("/v1/tool-calls", {
      body: {
        tool_calls: [
          openaiCall("c1", "github__repos_get", { owner: "cloudflare", repo: "workers-sdk" }),
          openaiCall("c2", "github__repos_get", { owner: "octocat", repo: "no-such-repo" }),
        ],
      },
    });
    const [known, unknown] = (await json<CallResults>(call)).results;
    expect(known?.status).toBe("ok");
    expect(JSON.parse(known?.message.content ?? "{}")).toMatchObject({ full_name: "cloudflare/workers-sdk" });
    expect(unknown?.error_code).toBe("UPSTREAM_ERROR");
    expect(JSON.parse(unknown?.message.content ?? "{}")).toMatchObject({ retryable: false, error: expect.stringContaining("HTTP 404") });
  });
});
