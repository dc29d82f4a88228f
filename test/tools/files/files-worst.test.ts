/**
 * read_file's, write_file's and list_files' worst inputs (tools/) end with a bounded, correct
 * answer through the pipeline: windows of 10 MiB files of many empty lines or of one line, 10 MiB
 * writes the read_file-output check must not split, and the largest listing page.
 */
import { describe, expect, it } from "vitest";
import { runWorst, storedText, worstInput } from "../../support/worst-inputs.ts";

const body = (content: string) => JSON.parse(content) as Record<string, unknown>;

// Writing a 10 MiB file and reading it back take seconds of their own on a busy machine.
describe("the file tools at their worst inputs", { timeout: 60_000 }, () => {
  it("read_file shows the last 2,000 of 10 million empty lines, numbered", async () => {
    const { outcome } = await runWorst("read_file", worstInput("read_file", "the last window"));
    expect(outcome.status, outcome.content.slice(0, 300)).toBe("ok");
    const lines = 10 * 1024 * 1024;
    expect(body(outcome.content)).toMatchObject({ total_lines: lines, truncated: false });
    expect(String(body(outcome.content).content).split("\n")).toEqual(Array.from({ length: 2000 }, (_, i) => `${lines - 1999 + i}|`));
  });

  it("read_file shows a 10 MiB single line cut at 2,000 characters", async () => {
    const { outcome } = await runWorst("read_file", worstInput("read_file", "a full window"));
    expect(outcome.status, outcome.content.slice(0, 300)).toBe("ok");
    expect(body(outcome.content)).toMatchObject({ total_lines: 1, content: `1|${"x".repeat(2000)}... [truncated]`, truncated: false });
  });

  it("write_file stores 10 MiB of empty lines", async () => {
    const { outcome, keyId } = await runWorst("write_file", worstInput("write_file", "10 MiB of empty lines"));
    expect(outcome.status, outcome.content.slice(0, 300)).toBe("ok");
    expect((await storedText(keyId, "worst/write-lines.txt"))?.length).toBe(10 * 1024 * 1024);
  });

  it("write_file refuses 10 MiB of numbered lines as read_file output and writes nothing", async () => {
    const { outcome, keyId } = await runWorst("write_file", worstInput("write_file", "10 MiB of 'N|'"));
    expect(outcome.errorCode, outcome.content.slice(0, 300)).toBe("INVALID_ARGUMENTS");
    expect(outcome.content).toContain("looks like read_file output");
    expect(await storedText(keyId, "worst/write-numbered.txt")).toBeNull();
  });

  it("list_files lists 1,000 files recursively in one page", async () => {
    const { outcome } = await runWorst("list_files", worstInput("list_files", "a recursive page"));
    expect(outcome.status, outcome.content.slice(0, 300)).toBe("ok");
    expect((body(outcome.content).entries as unknown[]).length).toBe(1000);
  });
});
