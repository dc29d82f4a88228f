/**
 * patch through /v1/tool-calls on the real local R2 bucket: exact and fuzzy matches with the
 * unified diff they return, an ambiguous match refused with its count, a resent patch, and the
 * file cap on what a patch writes.
 */
import { describe, expect, it } from "vitest";
import { agentKey, call, failed, ok, seed, stored } from "./support.ts";

const SOURCE = ["function greet(name) {", "    if (name) {", "        return `hi ${name}`;", "    }", "    return 'hi';", "}", ""].join("\n");

describe("patch", () => {
  it("replaces one exact occurrence and returns a unified diff", async () => {
    const key = await agentKey("exact");
    await seed(key, "greet.js", SOURCE);
    const result = ok(await call(key, "patch", { path: "greet.js", old_string: "return 'hi';", new_string: "return 'hello';" }));
    expect(result).toMatchObject({ success: true, path: "greet.js", strategy: "exact", replacements: 1 });
    expect(result.diff).toBe(
      [
        "--- a/greet.js",
        "+++ b/greet.js",
        "@@ -2,5 +2,5 @@",
        "     if (name) {",
        "         return `hi ${name}`;",
        "     }",
        "-    return 'hi';",
        "+    return 'hello';",
        " }",
        "",
      ].join("\n"),
    );
    expect(await stored(key, "greet.js")).toBe(SOURCE.replace("return 'hi';", "return 'hello';"));
  });

  it("matches a block quoted with the wrong indentation and re-indents the replacement to the file's", async () => {
    const key = await agentKey("fuzzy");
    await seed(key, "greet.js", SOURCE);
    const result = ok(
      await call(key, "patch", {
        path: "greet.js",
        old_string: "if (name) {\n    return `hi ${name}`;\n}",
        new_string: "if (name) {\n    return `hello ${name}`;\n}",
      }),
    );
    expect(result).toMatchObject({ success: true, strategy: "line_trimmed" });
    expect(await stored(key, "greet.js")).toBe(SOURCE.replace("        return `hi ${name}`;", "        return `hello ${name}`;"));
  });

  it("keeps a CRLF file's line endings when an exact match is replaced by several lines", async () => {
    const key = await agentKey("crlf");
    await seed(key, "win.txt", "first\r\nsecond\r\n");
    const result = ok(await call(key, "patch", { path: "win.txt", old_string: "first", new_string: "one\ntwo" }));
    expect(result.strategy).toBe("exact");
    expect(await stored(key, "win.txt")).toBe("one\r\ntwo\r\nsecond\r\n");
  });

  it("matches despite runs of spaces and tabs inside a line", async () => {
    const key = await agentKey("spaces");
    await seed(key, "conf.ini", "name  =\tvalue\nother = 1\n");
    const result = ok(await call(key, "patch", { path: "conf.ini", old_string: "name = value", new_string: "name = changed" }));
    expect(result.strategy).toBe("whitespace_normalized");
    expect(await stored(key, "conf.ini")).toBe("name = changed\nother = 1\n");
  });

  it("refuses an ambiguous match, saying how many and on which lines, and changes nothing", async () => {
    const key = await agentKey("ambiguous");
    const text = "x = 1\ny = 2\nx = 1\nz = 3\nx = 1\n";
    await seed(key, "vars.txt", text);
    const result = await call(key, "patch", { path: "vars.txt", old_string: "x = 1", new_string: "x = 9" });
    expect(result).toMatchObject({ status: "error", error_code: "EXECUTION_FAILED" });
    const body = JSON.parse(result.message.content);
    expect(body).toMatchObject({ match_count: 3, path: "vars.txt" });
    expect(body.error).toContain("Found 3 matches for old_string in vars.txt");
    expect(body.error).toContain("L1: x = 1\n  L3: x = 1\n  L5: x = 1");
    expect(await stored(key, "vars.txt")).toBe(text);

    expect(ok(await call(key, "patch", { path: "vars.txt", old_string: "x = 1", new_string: "x = 9", replace_all: true }))).toMatchObject({ replacements: 3 });
    expect(await stored(key, "vars.txt")).toBe("x = 9\ny = 2\nx = 9\nz = 3\nx = 9\n");
  });

  it("says a patch was already applied instead of failing it, and points near lines for a miss", async () => {
    const key = await agentKey("again");
    await seed(key, "greet.js", SOURCE);
    const args = { path: "greet.js", old_string: "return 'hi';", new_string: "return 'hello there';" };
    ok(await call(key, "patch", args));
    expect(ok(await call(key, "patch", args))).toMatchObject({ success: true, no_change: true });
    const miss = JSON.parse((await call(key, "patch", { path: "greet.js", old_string: "function  GREET(name)  { // x", new_string: "y" })).message.content);
    expect(miss.error).toContain("Could not find a match for old_string in greet.js");
  });

  it("refuses an empty old_string as INVALID_ARGUMENTS and a binary file without touching it", async () => {
    const key = await agentKey("bad");
    failed(await call(key, "patch", { path: "a.txt", old_string: "", new_string: "x" }), "INVALID_ARGUMENTS");
    await seed(key, "blob.bin", new Uint8Array([1, 0, 2, 0, 3]));
    expect(JSON.parse((await call(key, "patch", { path: "blob.bin", old_string: "a", new_string: "b" })).message.content)).toMatchObject({
      is_binary: true,
      file_size: 5,
    });
  });

  it("refuses a patch that would take a file past the 10 MiB cap", async () => {
    const key = await agentKey("cap");
    const near = "a".repeat(10 * 1024 * 1024 - 10) + "\nEND\n";
    await seed(key, "near.txt", near);
    const envelope = failed(await call(key, "patch", { path: "near.txt", old_string: "END", new_string: "END".repeat(100) }), "INVALID_ARGUMENTS");
    expect(envelope.issues).toEqual([
      expect.objectContaining({ path: "new_string", message: expect.stringContaining("over the workspace's 10.0 MB file limit") }),
    ]);
    expect((await stored(key, "near.txt"))?.length).toBe(near.length);
  });
});
