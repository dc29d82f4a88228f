/**
 * The relative links of markdown files and whether each resolves: to a file that exists and, when
 * it names an anchor, to a heading of that file (GitHub's heading ids).
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";

/** `[text](target)` links, images included; code spans and fenced blocks are left out. */
function linksOf(markdown: string): string[] {
  const prose = markdown.replace(/```[\s\S]*?```/g, "").replace(/`[^`\n]*`/g, "");
  return [...prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((match) => match[1] ?? "");
}

/**
 * The ids GitHub gives a file's headings: lower case, punctuation but `-` and `_` dropped, spaces
 * as `-`, a repeated id suffixed `-1`, `-2`.
 */
export function headingIds(markdown: string): Set<string> {
  const ids = new Set<string>();
  const seen = new Map<string, number>();
  for (const match of markdown.replace(/```[\s\S]*?```/g, "").matchAll(/^#{1,6} +(.+?) *#* *$/gm)) {
    const base = (match[1] ?? "")
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, "")
      .replace(/ /g, "-");
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    ids.add(count === 0 ? base : `${base}-${count}`);
  }
  return ids;
}

/** Every relative link of `files` (paths under `root`) that does not resolve, as `file: link (why)`. */
export function brokenLinks(root: string, files: readonly string[]): string[] {
  const broken: string[] = [];
  for (const file of files) {
    const markdown = readFileSync(join(root, file), "utf8");
    for (const link of linksOf(markdown)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(link)) continue; // https:, mailto: and the like: not ours to check
      const [path = "", anchor] = link.split("#", 2);
      const target = path === "" ? join(root, file) : join(root, dirname(file), decodeURIComponent(path));
      if (!existsSync(target)) {
        broken.push(`${file}: ${link} (no file ${relative(root, target)})`);
        continue;
      }
      if (anchor !== undefined && target.endsWith(".md") && !headingIds(readFileSync(target, "utf8")).has(anchor)) {
        broken.push(`${file}: ${link} (no heading #${anchor} in ${relative(root, target)})`);
      }
    }
  }
  return broken;
}
