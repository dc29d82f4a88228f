/**
 * patch's multi-file mode (a V4A patch) through /v1/tool-calls on the real local R2 bucket: add,
 * update, delete and move in one patch; all or nothing when a later part fails; header paths
 * confined to the workspace; syntax errors naming the line.
 */
import { describe, expect, it } from "vitest";
import { agentKey, call, failed, ok, seed, stored } from "./support.ts";

const APP = ["function start() {", "  const retries = 3;", "  run(retries);", "}", "", "function stop() {", "  halt();", "}", ""].join("\n");

const v4a = (...lines: string[]) => ["*** Begin Patch", ...lines, "*** End Patch"].join("\n");

describe("patch in patch mode (V4A)", () => {
  it("adds, updates, deletes and moves files in one patch and returns each change's diff", async () => {
    const key = await agentKey("v4a-all");
    await seed(key, "src/app.ts", APP);
    await seed(key, "old.txt", "obsolete\n");
    await seed(key, "notes/a.md", "# A\n");
    await seed(key, "src/util.ts", "export const one = 1;\nexport const two = 2;\n");
    const patch = v4a(
      "*** Add File: docs/new.md",
      "+# New",
      "+second line",
      "*** Update File: src/app.ts",
      "@@ function start() {",
      "-  const retries = 3;",
      "+  const retries = 5;",
      "@@ function stop() {",
      "-  halt();",
      "+  halt(true);",
      "*** Delete File: old.txt",
      "*** Move File: notes/a.md -> notes/b.md",
      "*** Update File: src/util.ts",
      "*** Move to: src/numbers.ts",
      "@@",
      " export const one = 1;",
      "-export const two = 2;",
      "+export const two = 22;",
    );
    const result = ok(await call(key, "patch", { mode: "patch", patch }));
    expect(result).toMatchObject({
      success: true,
      files_created: ["docs/new.md"],
      files_modified: ["src/app.ts"],
      files_deleted: ["old.txt"],
      files_moved: ["notes/a.md -> notes/b.md", "src/util.ts -> src/numbers.ts"],
    });
    expect(result.diff).toContain("--- /dev/null\n+++ b/docs/new.md\n@@ -0,0 +1,2 @@\n+# New\n+second line\n");
    expect(result.diff).toContain("-  const retries = 3;\n+  const retries = 5;");
    expect(result.diff).toContain("--- a/old.txt\n+++ /dev/null\n@@ -1,1 +0,0 @@\n-obsolete\n");
    expect(result.diff).toContain("# Moved: notes/a.md -> notes/b.md");

    expect(await stored(key, "docs/new.md")).toBe("# New\nsecond line\n");
    expect(await stored(key, "src/app.ts")).toBe(APP.replace("retries = 3", "retries = 5").replace("halt();", "halt(true);"));
    expect(await stored(key, "old.txt")).toBeNull();
    expect(await stored(key, "notes/a.md")).toBeNull();
    expect(await stored(key, "notes/b.md")).toBe("# A\n");
    expect(await stored(key, "src/util.ts")).toBeNull();
    expect(await stored(key, "src/numbers.ts")).toBe("export const one = 1;\nexport const two = 22;\n");
  });

  it("leaves every file untouched when a later hunk does not fit, saying which one", async () => {
    const key = await agentKey("v4a-atomic");
    await seed(key, "src/app.ts", APP);
    await seed(key, "keep.txt", "keep me\n");
    const patch = v4a(
      "*** Add File: created.txt",
      "+should not exist",
      "*** Delete File: keep.txt",
      "*** Update File: src/app.ts",
      "@@ function start() {",
      "-  const retries = 3;",
      "+  const retries = 5;",
      "@@ function stop() {",
      "-  halt(now);",
      "+  halt(later);",
    );
    const result = await call(key, "patch", { mode: "patch", patch });
    expect(result.status).toBe("error");
    const body = JSON.parse(result.message.content) as { error: string; path: string; patch_line: number };
    expect(body).toMatchObject({ path: "src/app.ts", patch_line: 9 });
    expect(body.error).toContain("Patch validation failed (no files were modified)");
    expect(body.error).toContain("hunk 2 (line 9 of the patch)");
    expect(await stored(key, "created.txt")).toBeNull();
    expect(await stored(key, "keep.txt")).toBe("keep me\n");
    expect(await stored(key, "src/app.ts")).toBe(APP);
  });

  it("refuses a header path that leaves the workspace before reading or writing anything", async () => {
    const key = await agentKey("v4a-escape");
    await seed(key, "a.txt", "a\n");
    const patch = v4a("*** Delete File: a.txt", "*** Add File: ../../other-key/stolen.txt", "+x");
    const envelope = failed(await call(key, "patch", { mode: "patch", patch }), "INVALID_ARGUMENTS");
    expect(envelope.issues).toEqual([expect.objectContaining({ path: "patch", message: expect.stringMatching(/^line 3: .*'\.\.'/) })]);
    expect(await stored(key, "a.txt")).toBe("a\n");
    for (const escape of ["/etc/passwd", "~/x", "a\\b.txt"]) {
      failed(await call(key, "patch", { mode: "patch", patch: v4a(`*** Add File: ${escape}`, "+x") }), "INVALID_ARGUMENTS");
    }
  });

  it("names the line of a syntax error and gives an example", async () => {
    const key = await agentKey("v4a-syntax");
    const notHeader = failed(await call(key, "patch", { mode: "patch", patch: v4a("*** Add File: a.txt", "+a", "Update File: b.txt") }), "INVALID_ARGUMENTS");
    expect(notHeader.issues).toEqual([
      expect.objectContaining({ path: "patch", message: expect.stringContaining("line 4: every line of an Add File section starts with '+'") }),
    ]);
    expect(JSON.stringify(notHeader)).toContain("*** Update File: src/app.ts");

    const stray = failed(await call(key, "patch", { mode: "patch", patch: "hello\n*** Add File: a.txt\n+a" }), "INVALID_ARGUMENTS");
    expect(stray.issues).toEqual([expect.objectContaining({ message: expect.stringContaining("line 1: expected a file header") })]);

    const empty = failed(await call(key, "patch", { mode: "patch", patch: v4a("*** Update File: a.txt") }), "INVALID_ARGUMENTS");
    expect(empty.issues).toEqual([expect.objectContaining({ message: expect.stringContaining("line 2: Update File 'a.txt' has no hunk") })]);
  });

  it("refuses to add a file that exists or to move onto one, and asks for each mode's fields", async () => {
    const key = await agentKey("v4a-exists");
    await seed(key, "a.txt", "a\n");
    await seed(key, "b.txt", "b\n");
    const add = JSON.parse((await call(key, "patch", { mode: "patch", patch: v4a("*** Add File: a.txt", "+new") })).message.content);
    expect(add.error).toContain("Add File 'a.txt': the file exists; use '*** Update File:'");
    const move = JSON.parse((await call(key, "patch", { mode: "patch", patch: v4a("*** Move File: a.txt -> b.txt") })).message.content);
    expect(move.error).toContain("which exists already");
    expect([await stored(key, "a.txt"), await stored(key, "b.txt")]).toEqual(["a\n", "b\n"]);

    const noPatch = failed(await call(key, "patch", { mode: "patch" }), "INVALID_ARGUMENTS");
    expect(noPatch.issues).toEqual([
      expect.objectContaining({ path: "patch", message: "patch is required in patch mode, received nothing (the field is missing)" }),
    ]);
    const noOld = failed(await call(key, "patch", { path: "a.txt", new_string: "x" }), "INVALID_ARGUMENTS");
    expect(noOld.issues).toEqual([expect.objectContaining({ path: "old_string" })]);
  });

  it("keeps a CRLF file's line endings, tolerates indentation drift and inserts after an anchor", async () => {
    const key = await agentKey("v4a-drift");
    await seed(key, "win.txt", "alpha\r\n    beta\r\ngamma\r\n");
    const patch = v4a("*** Update File: win.txt", "@@", " beta", "-gamma", "+GAMMA", "@@ alpha", "+inserted");
    // The second hunk's anchor comes before the first hunk's place: hunks apply in order, so it misses.
    const miss = JSON.parse((await call(key, "patch", { mode: "patch", patch })).message.content);
    expect(miss.error).toContain("hunk 2");
    const inOrder = v4a("*** Update File: win.txt", "@@ alpha", "+inserted", "@@", " beta", "-gamma", "+GAMMA");
    ok(await call(key, "patch", { mode: "patch", patch: inOrder }));
    expect(await stored(key, "win.txt")).toBe("alpha\r\ninserted\r\n    beta\r\nGAMMA\r\n");
  });
});
