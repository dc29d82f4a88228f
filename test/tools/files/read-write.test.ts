/**
 * read_file, write_file and list_files through /v1/tool-calls on the real local R2 bucket:
 * confined paths, line windows, binary and oversized files, one workspace per key, and a write
 * and a read of one file in one batch running in order.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { workspacePrefix } from "../../../src/storage/workspace-keys.ts";
import { openaiCall } from "../../support/tool-calls.ts";
import { agentKey, call, callTools, failed, ok, seed, stored } from "./support.ts";

describe("workspace paths", () => {
  it.each([
    ["../escape.txt", "'..'"],
    ["notes/../../etc/passwd", "'..'"],
    ["/etc/passwd", "absolute"],
    ["~/secrets", "absolute"],
    ["C:/windows/win.ini", "absolute"],
    ["a\0b.txt", "NUL byte"],
    ["dir\\file.txt", "backslash"],
    [`${"n".repeat(300)}.txt`, "longer than 255 bytes"],
  ])("refuses %j as INVALID_ARGUMENTS naming the path field (%s)", async (path, reason) => {
    const key = await agentKey("paths");
    for (const tool of ["read_file", "write_file"]) {
      const envelope = failed(await call(key, tool, { path, content: "x" }), "INVALID_ARGUMENTS");
      expect(envelope.issues).toEqual([expect.objectContaining({ path: "path", message: expect.stringContaining(reason) })]);
    }
  });

  it("refuses a path over 512 bytes before the handler, naming the field", async () => {
    const key = await agentKey("long");
    const envelope = failed(await call(key, "write_file", { path: `${"d/".repeat(300)}f.txt`, content: "x" }), "INVALID_ARGUMENTS");
    expect(envelope.issues).toEqual([expect.objectContaining({ path: "path" })]);
  });

  it("normalises './a//b' to 'a/b', so both name one file", async () => {
    const key = await agentKey("normal");
    expect(ok(await call(key, "write_file", { path: "./docs//readme.md", content: "hello\n" }))).toEqual({ path: "docs/readme.md", bytes_written: 6 });
    expect(await stored(key, "docs/readme.md")).toBe("hello\n");
    expect(ok(await call(key, "read_file", { path: "docs/readme.md" }))).toMatchObject({ content: "1|hello", total_lines: 1 });
  });
});

describe("read_file", () => {
  it("returns numbered windows, says the total and where to read on, and moves through the file", async () => {
    const key = await agentKey("windows");
    await seed(key, "lines.txt", Array.from({ length: 25 }, (_, i) => `line ${i + 1}`).join("\n") + "\n");
    const first = ok(await call(key, "read_file", { path: "lines.txt", limit: 10 }));
    expect(first).toMatchObject({
      path: "lines.txt",
      total_lines: 25,
      truncated: true,
      is_binary: false,
      hint: "Use offset=11 to continue reading (showing 1-10 of 25 lines).",
    });
    expect(String(first.content).split("\n")).toEqual(Array.from({ length: 10 }, (_, i) => `${i + 1}|line ${i + 1}`));
    const last = ok(await call(key, "read_file", { path: "lines.txt", offset: 21, limit: 10 }));
    expect(last).toMatchObject({ content: "21|line 21\n22|line 22\n23|line 23\n24|line 24\n25|line 25", truncated: false });
    expect(last.hint).toBeUndefined();
    expect(ok(await call(key, "read_file", { path: "lines.txt", offset: 40 }))).toMatchObject({
      content: "",
      hint: expect.stringContaining("the file has 25 lines"),
    });
  });

  it("answers a missing file with an error that names similar files", async () => {
    const key = await agentKey("missing");
    await seed(key, "src/App.ts", "export {};\n");
    const result = await call(key, "read_file", { path: "src/app.js" });
    expect(result).toMatchObject({ status: "error", error_code: "EXECUTION_FAILED" });
    expect(JSON.parse(result.message.content)).toMatchObject({ error: expect.stringContaining("File not found: src/app.js"), similar_files: ["src/App.ts"] });
  });

  it("reports a binary file as binary with its size and never dumps its bytes", async () => {
    const key = await agentKey("binary");
    const png = new Uint8Array(4096);
    png.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
    await seed(key, "logo.png", png);
    const result = await call(key, "read_file", { path: "logo.png" });
    expect(result.status).toBe("error");
    expect(JSON.parse(result.message.content)).toEqual({
      error: "Binary file (PNG image, 4.0 KB): it cannot be shown as text.",
      path: "logo.png",
      is_binary: true,
      file_size: 4096,
    });
  });

  it("reads windows of a 10 MB file, and refuses a file over the 10 MiB cap with its size", async () => {
    const key = await agentKey("big");
    const line = `${"x".repeat(99)}\n`;
    await seed(key, "big.log", line.repeat(100_000));
    const window = ok(await call(key, "read_file", { path: "big.log", offset: 50_000, limit: 3 }));
    expect(window).toMatchObject({
      total_lines: 100_000,
      file_size: 10_000_000,
      truncated: true,
      hint: "Use offset=50003 to continue reading (showing 50000-50002 of 100000 lines).",
    });
    expect(String(window.content).split("\n")[0]).toBe(`50000|${"x".repeat(99)}`);
    // A full window of long lines stops at its character budget and says where to go on.
    const wide = ok(await call(key, "read_file", { path: "big.log", limit: 2000 }));
    expect(String(wide.content).length).toBeLessThanOrEqual(100_000);
    expect(wide.hint).toMatch(/^Use offset=\d+ to continue reading/);

    await seed(key, "huge.log", new Uint8Array(11 * 1024 * 1024).fill(0x61));
    const envelope = failed(await call(key, "read_file", { path: "huge.log" }), "INVALID_ARGUMENTS");
    expect(envelope.error).toContain("'huge.log' is 11.0 MB, over the workspace's 10.0 MB file limit");
  });
});

describe("write_file", () => {
  it("refuses read_file output pasted back with its line numbers", async () => {
    const key = await agentKey("numbered");
    const envelope = failed(await call(key, "write_file", { path: "a.txt", content: "1|one\n2|two\n3|three\n" }), "INVALID_ARGUMENTS");
    expect(envelope.issues).toEqual([expect.objectContaining({ path: "content", message: expect.stringContaining("line-number prefixes") })]);
    expect(await stored(key, "a.txt")).toBeNull();
  });

  it("keeps one workspace per key: another key neither reads, lists nor overwrites it", async () => {
    const [alice, bob] = [await agentKey("alice"), await agentKey("bob")];
    ok(await call(alice, "write_file", { path: "plan.md", content: "alice's plan\n" }));
    expect(JSON.parse((await call(bob, "read_file", { path: "plan.md" })).message.content).error).toContain("File not found: plan.md");
    expect(ok(await call(bob, "list_files", {})).entries).toEqual([]);
    ok(await call(bob, "write_file", { path: "plan.md", content: "bob's plan\n" }));
    expect(ok(await call(alice, "read_file", { path: "plan.md" })).content).toBe("1|alice's plan");
    expect(ok(await call(bob, "search_files", { pattern: "plan" })).matches).toEqual([{ path: "plan.md", line: 1, content: "bob's plan" }]);
  });

  it("runs a write and a read of one file in one batch in order, whatever their speed", async () => {
    const key = await agentKey("batch");
    const content = Array.from({ length: 2000 }, (_, i) => `row ${i}`).join("\n");
    const batch = await callTools(key, "files-batch", [
      openaiCall("w", "write_file", { path: "out/data.txt", content }),
      openaiCall("r", "read_file", { path: "./out/data.txt", offset: 2000, limit: 1 }),
      openaiCall("l", "list_files", { path: "out" }),
    ]);
    expect(batch.results.map((r) => r.status)).toEqual(["ok", "ok", "ok"]);
    expect(JSON.parse(batch.results[1]?.message.content ?? "{}")).toMatchObject({ content: "2000|row 1999", total_lines: 2000 });
    expect(JSON.parse(batch.results[2]?.message.content ?? "{}")).toMatchObject({ entries: [expect.objectContaining({ path: "out/data.txt", type: "file" })] });
  });
});

describe("list_files", () => {
  it("lists a directory's files and subdirectories, recursively on request, paged by cursor", async () => {
    const key = await agentKey("list");
    for (const path of ["a.txt", "src/x.ts", "src/y.ts", "src/lib/z.ts"]) await seed(key, path, "x");
    expect(ok(await call(key, "list_files", { path: "src" })).entries).toEqual([
      { path: "src/lib", type: "dir" },
      expect.objectContaining({ path: "src/x.ts", type: "file", size: 1, modified: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) }),
      expect.objectContaining({ path: "src/y.ts", type: "file" }),
    ]);
    const first = ok(await call(key, "list_files", { recursive: true, limit: 3 }));
    expect((first.entries as { path: string }[]).map((e) => e.path)).toEqual(["a.txt", "src/lib/z.ts", "src/x.ts"]);
    const rest = ok(await call(key, "list_files", { recursive: true, limit: 3, cursor: first.next_cursor }));
    expect((rest.entries as { path: string }[]).map((e) => e.path)).toEqual(["src/y.ts"]);
  });

  it("keeps a session's own workspace under its key's prefix when scoped per session", () => {
    // WORKSPACE_SCOPE=session is a deployment setting; its key layout is what keeps sessions and keys apart.
    expect(workspacePrefix("session", "k/1", "s/1")).toBe("ws/session/k%2F1/s%2F1/");
    expect(workspacePrefix("key", "k/1", "s/1")).toBe("ws/key/k%2F1/");
    expect(env.WORKSPACE_SCOPE).toBe("key");
  });
});
