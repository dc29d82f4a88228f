/**
 * patch builds its diff from the spans it replaced (lib/workspace/span-diff.ts) rather than by
 * diffing the two texts; on small edits that a general diff handles quickly, both must agree,
 * so jsdiff's output is the reference here.
 */
import { createTwoFilesPatch, FILE_HEADERS_ONLY } from "diff";
import { describe, expect, it } from "vitest";
import { agentKey, call, ok, seed, stored } from "./support.ts";

const lines = (n: number, f: (i: number) => string) => Array.from({ length: n }, (_, i) => f(i)).join("\n");

async function expectDiffAgrees(name: string, before: string, args: { old_string: string; new_string: string; replace_all?: boolean }): Promise<void> {
  const key = await agentKey(name);
  await seed(key, "f.txt", before);
  const result = ok(await call(key, "patch", { path: "f.txt", ...args }));
  const after = (await stored(key, "f.txt")) ?? "";
  expect(result.diff).toBe(createTwoFilesPatch("a/f.txt", "b/f.txt", before, after, undefined, undefined, { context: 3, headerOptions: FILE_HEADERS_ONLY }));
}

describe("patch's diff", () => {
  it("matches a general diff for a replace_all whose changes are near and far apart", async () => {
    const before = `${lines(40, (i) => (i % 9 === 0 || i === 12 ? "x = 1" : `line ${i}`))}\n`;
    await expectDiffAgrees("spread", before, { old_string: "x = 1", new_string: "x = 9", replace_all: true });
  });

  it("matches a general diff when the last line, which has no newline, changes", async () => {
    await expectDiffAgrees(
      "no-eol",
      lines(8, (i) => `row ${i}`),
      { old_string: "row 7", new_string: "row seven\nrow eight" },
    );
  });

  it("matches a general diff when a line is deleted with its newline", async () => {
    await expectDiffAgrees("delete", `${lines(10, (i) => `item ${i}`)}\n`, { old_string: "item 4\n", new_string: "" });
  });

  it("matches a general diff when a replacement drops the newline its match ended with", async () => {
    await expectDiffAgrees("join", `${lines(6, (i) => `part ${i}`)}\n`, { old_string: "part 2\n", new_string: "part 2 and " });
  });

  it("matches a general diff for a fuzzy match whose first and last lines stay as they were", async () => {
    const before = "fn main() {\n    let a = 1;\n    let b = 2;\n    print(a + b);\n}\n";
    await expectDiffAgrees("fuzzy", before, {
      old_string: "let a = 1;\nlet b = 2;\nprint(a + b);",
      new_string: "let a = 1;\nlet b = 3;\nprint(a + b);",
    });
  });
});
