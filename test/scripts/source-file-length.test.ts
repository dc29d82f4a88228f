/**
 * Issue 12's rule for a layout a reader can take in: no hand-written file in src/ over 250
 * lines. Generated files (`*.gen.*`, marked "do not edit") are exempt.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "../..");
const MAX_LINES = 250;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|tsx)$/.test(entry.name) && !entry.name.includes(".gen.") ? [path] : [];
  });
}

describe("src/ file length", () => {
  it(`keeps every hand-written source file within ${MAX_LINES} lines`, () => {
    const over = sourceFiles(join(ROOT, "src")).flatMap((path) => {
      const lines = readFileSync(path, "utf8").split("\n").length - 1;
      return lines > MAX_LINES ? [`${relative(ROOT, path)}: ${lines} lines`] : [];
    });
    expect(over).toEqual([]);
  });
});
