/** Tool-name globs: `*` any run, `?` one character, everything else literal. */
import { describe, expect, it } from "vitest";
import { compileGlob } from "../../src/policy/glob.ts";

const matches = (pattern: string, name: string) => compileGlob(pattern)(name);

describe("compileGlob", () => {
  it("matches a plain name only exactly", () => {
    expect(matches("shell", "shell")).toBe(true);
    expect(matches("shell", "shell_exec")).toBe(false);
    expect(matches("shell", "Shell")).toBe(false);
  });

  it("lets * match any run of characters, the empty one included", () => {
    expect(matches("mcp__github__*", "mcp__github__create_issue")).toBe(true);
    expect(matches("mcp__github__*", "mcp__github__")).toBe(true);
    expect(matches("mcp__github__*", "mcp__gitlab__create_issue")).toBe(false);
    expect(matches("*_delete", "repo_delete")).toBe(true);
    expect(matches("*", "anything")).toBe(true);
    expect(matches("mcp__*__read*", "mcp__fs__read_file")).toBe(true);
  });

  it("lets ? match exactly one character", () => {
    expect(matches("tool_?", "tool_a")).toBe(true);
    expect(matches("tool_?", "tool_")).toBe(false);
    expect(matches("tool_?", "tool_ab")).toBe(false);
  });

  it("treats regular-expression characters as literals", () => {
    expect(matches("a.b*", "a.bc")).toBe(true);
    expect(matches("a.b*", "axbc")).toBe(false);
    expect(matches("x-(y)+*", "x-(y)+z")).toBe(true);
    expect(matches("x-(y)+*", "x-yyz")).toBe(false);
  });

  it("anchors the whole name", () => {
    expect(matches("echo*", "my_echo")).toBe(false);
    expect(matches("*echo", "echo_two")).toBe(false);
  });
});
