import { describe, expect, it } from "vitest";
import { remoteToolName, remoteToolset } from "../../../src/mcp/federation/remote-tool-name.ts";
import { selectTools } from "../../../src/mcp/federation/select-tools.ts";

describe("remoteToolName", () => {
  it("keeps letters, digits, '_' and '-', and replaces everything else without collapsing runs", () => {
    expect(remoteToolName("my-api", "list.items v2")).toBe("mcp__my-api__list_items_v2");
    expect(remoteToolName("s", "a..b/ü")).toBe("mcp__s__a__b__");
  });

  it("cuts names over 64 characters and ends them with a hash of the full remote name", () => {
    const a = remoteToolName("server", `${"x".repeat(80)}a`);
    const b = remoteToolName("server", `${"x".repeat(80)}b`);
    expect(a).toHaveLength(64);
    expect(a).toMatch(/^mcp__server__x+_[0-9a-f]{8}$/);
    expect(a).not.toBe(b);
    expect(remoteToolName("server", `${"x".repeat(80)}a`)).toBe(a);
  });

  it("puts a server's tools in toolset mcp-<server>", () => {
    expect(remoteToolset("github")).toBe("mcp-github");
  });
});

describe("selectTools", () => {
  const tools = ["create_issue", "delete_repo", "delete_issue", "list_issues"].map((name) => ({ name }));
  const names = (include: string[] | undefined, exclude: string[]) => selectTools(tools, include, exclude).map((t) => t.name);

  it("keeps everything but the excluded globs when there is no include", () => {
    expect(names(undefined, ["delete_*"])).toEqual(["create_issue", "list_issues"]);
  });

  it("keeps only included tools, and include wins over exclude", () => {
    expect(names(["*_issue", "delete_repo"], ["delete_*"])).toEqual(["create_issue", "delete_repo", "delete_issue"]);
  });

  it("registers nothing for an empty include", () => {
    expect(names([], [])).toEqual([]);
  });
});
