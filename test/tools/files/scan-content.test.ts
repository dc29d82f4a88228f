/**
 * The content scan under search_files, on the real local R2 bucket: it stops at its work budget
 * inside a file, and at its time budget or signal at the next file, and says which, rather than
 * running on for as long as the workspace is big.
 */
import { env } from "cloudflare:workers";
import { RE2JS } from "re2js";
import { describe, expect, it } from "vitest";
import { scanContent } from "../../../tools/lib/workspace/scan-content.ts";

describe("scanContent", () => {
  it("stops at its work budget in the middle of a large file, keeping what it found", async () => {
    const ws = { bucket: env.WORKSPACE, prefix: `ws/test/${crypto.randomUUID()}/` };
    const text = Array.from({ length: 100_000 }, (_, i) => `line ${i} ${"z".repeat(40)}`).join("\n");
    await env.WORKSPACE.put(`${ws.prefix}big.txt`, text);
    const result = await scanContent(ws, [{ path: "big.txt", size: text.length }], RE2JS.compile("^line \\d+0 "), {
      mode: "count",
      stopAfter: Number.POSITIVE_INFINITY,
      maxChars: 1_000_000,
      deadlineAt: Date.now() + 60_000,
      signal: new AbortController().signal,
    });
    expect(result.stoppedBy).toBe("work_budget");
    // About 1 MB of ~50-character lines is some 20,000 lines, one in ten of them matching.
    const counted = result.counts.get("big.txt") ?? 0;
    expect(counted).toBeGreaterThan(1_500);
    expect(counted).toBeLessThan(2_500);
  });

  it("stops at the first file boundary past its deadline", async () => {
    const ws = { bucket: env.WORKSPACE, prefix: `ws/test/${crypto.randomUUID()}/` };
    for (const name of ["a.txt", "b.txt"]) await env.WORKSPACE.put(`${ws.prefix}${name}`, "x\n");
    const files = [
      { path: "a.txt", size: 2 },
      { path: "b.txt", size: 2 },
    ];
    const result = await scanContent(ws, files, RE2JS.compile("x"), {
      mode: "content",
      stopAfter: 100,
      maxChars: 1e9,
      deadlineAt: Date.now() - 1,
      signal: new AbortController().signal,
    });
    expect(result).toMatchObject({ stoppedBy: "search_timeout", filesScanned: 0, matches: [] });
  });

  it("stops when the call's signal fires", async () => {
    const ws = { bucket: env.WORKSPACE, prefix: `ws/test/${crypto.randomUUID()}/` };
    await env.WORKSPACE.put(`${ws.prefix}a.txt`, "x\n".repeat(10));
    const aborted = AbortSignal.abort();
    const result = await scanContent(ws, [{ path: "a.txt", size: 20 }], RE2JS.compile("x"), {
      mode: "content",
      stopAfter: 100,
      maxChars: 1e9,
      deadlineAt: Date.now() + 60_000,
      signal: aborted,
    });
    expect(result).toMatchObject({ stoppedBy: "search_timeout", filesScanned: 0, matches: [] });
  });
});
