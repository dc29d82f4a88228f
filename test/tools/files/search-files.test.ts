/**
 * search_files through /v1/tool-calls on the real local R2 bucket: content and name searches,
 * capped and paged, binary files skipped, and patterns that would backtrack for ever on a
 * backtracking engine ending quickly on the linear one.
 */
import { describe, expect, it } from "vitest";
import { agentKey, call, failed, ok, seed } from "./support.ts";

describe("search_files", () => {
  it("finds matching lines with path and line number, filtered by file_glob and path", async () => {
    const key = await agentKey("content");
    await seed(key, "src/a.ts", "const a = 1; // TODO tidy\nexport { a };\n");
    await seed(key, "src/b.md", "TODO write docs\n");
    await seed(key, "other/c.ts", "// TODO elsewhere\n");
    expect(ok(await call(key, "search_files", { pattern: "TODO", path: "src", file_glob: "*.ts" }))).toMatchObject({
      total_count: 1,
      matches: [{ path: "src/a.ts", line: 1, content: "const a = 1; // TODO tidy" }],
      truncated: false,
      files_searched: 1,
    });
    expect(ok(await call(key, "search_files", { pattern: "(?i)todo", output_mode: "files_only" })).files).toEqual(["other/c.ts", "src/a.ts", "src/b.md"]);
    expect(ok(await call(key, "search_files", { pattern: "TODO|export", output_mode: "count" })).counts).toEqual({
      "other/c.ts": 1,
      "src/a.ts": 2,
      "src/b.md": 1,
    });
  });

  it("finds anchored matches on any line, with CRLF endings, and a match spanning lines is no match", async () => {
    const key = await agentKey("anchors");
    await seed(key, "crlf.txt", "first\r\nsecond end\r\nthird\r\n");
    await seed(key, "span.txt", "alpha\nbeta\n");
    const lines = async (pattern: string) =>
      (ok(await call(key, "search_files", { pattern })).matches as { path: string; line: number }[]).map((m) => `${m.path}:${m.line}`);
    expect(await lines("end$")).toEqual(["crlf.txt:2"]);
    expect(await lines("^third")).toEqual(["crlf.txt:3"]);
    expect(await lines("\\Asecond")).toEqual(["crlf.txt:2"]);
    expect(await lines("(?-m)^beta$")).toEqual(["span.txt:2"]);
    expect(await lines("alpha\\sbeta")).toEqual([]);
  });

  it("caps results and pages them with offset, saying more exist", async () => {
    const key = await agentKey("paging");
    await seed(key, "log.txt", Array.from({ length: 30 }, (_, i) => `hit ${i + 1}`).join("\n"));
    const first = ok(await call(key, "search_files", { pattern: "^hit", limit: 10 }));
    expect(first).toMatchObject({ truncated: true, total_count_is_lower_bound: true, hint: expect.stringContaining("offset=10") });
    expect((first.matches as { line: number }[]).map((m) => m.line)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    const next = ok(await call(key, "search_files", { pattern: "^hit", limit: 10, offset: 10 }));
    expect((next.matches as { line: number }[])[0]?.line).toBe(11);
  });

  it("matches file names by glob, by name at any depth or by whole path with a '/'", async () => {
    const key = await agentKey("names");
    for (const path of ["a.test.ts", "src/b.test.ts", "src/deep/c.test.ts", "src/d.ts", "README.md"]) await seed(key, path, "x");
    expect(ok(await call(key, "search_files", { pattern: "*.test.ts", target: "files" })).files).toEqual(["a.test.ts", "src/b.test.ts", "src/deep/c.test.ts"]);
    expect(ok(await call(key, "search_files", { pattern: "src/**/*.{ts,md}", target: "files" })).files).toEqual([
      "src/b.test.ts",
      "src/d.ts",
      "src/deep/c.test.ts",
    ]);
    expect(ok(await call(key, "search_files", { pattern: "[A-Z]*.md", target: "files" })).files).toEqual(["README.md"]);
  });

  it("skips binary files, naming them, and never shows their bytes", async () => {
    const key = await agentKey("binary");
    await seed(key, "text.txt", "needle\n");
    await seed(key, "blob.bin", new Uint8Array([0x6e, 0x65, 0x65, 0x64, 0x6c, 0x65, 0, 1, 2]));
    expect(ok(await call(key, "search_files", { pattern: "needle" }))).toMatchObject({ total_count: 1, skipped_binary: ["blob.bin"] });
  });

  it("ends catastrophic patterns quickly over a large file: linear time, no backtracking", async () => {
    const key = await agentKey("redos");
    // Each line defeats a backtracking engine on these patterns (2^n ways to split the a's), and none matches.
    await seed(key, "evil.txt", `${"a".repeat(5_000)}b\n`.repeat(400));
    for (const pattern of ["(a+)+$", "^(a|a)*$", "(.*a){20}$", "^(a|aa)+$"]) {
      const started = Date.now();
      const result = ok(await call(key, "search_files", { pattern }));
      expect(result).toMatchObject({ total_count: 0, files_searched: 1, truncated: false });
      expect(Date.now() - started).toBeLessThan(8_000);
    }
  });

  it("refuses what RE2 cannot run (back-references, look-ahead) as INVALID_ARGUMENTS naming the pattern", async () => {
    const key = await agentKey("syntax");
    for (const pattern of ["(a)\\1", "foo(?=bar)", "([unclosed"]) {
      const envelope = failed(await call(key, "search_files", { pattern }), "INVALID_ARGUMENTS");
      expect(envelope.issues).toEqual([expect.objectContaining({ path: "pattern", message: expect.stringContaining("RE2 syntax") })]);
    }
    failed(await call(key, "search_files", { pattern: "x", path: "../up" }), "INVALID_ARGUMENTS");
  });
});
