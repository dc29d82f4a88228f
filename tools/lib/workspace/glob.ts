/**
 * Shell-style globs (`*.ts`, `src/**\/*.test.ts`, `{a,b}.md`, `[abc]?.txt`) as RE2 patterns.
 * They run on re2js like search patterns do: a glob such as `*a*a*a*a*b` is polynomial on a
 * backtracking engine, and names come from the caller.
 */
import type { Re2 } from "../../../src/runtime/re2.ts";

const META = /[\\.+*?()|[\]{}^$]/;
/** What `**\/` becomes: any number of whole directories, none included. */
const ANY_DIRS = "(?:.*/)?";

/** The RE2 pattern text for `glob`, anchored at both ends. `*` and `?` never cross a `/`. */
export function globToPattern(glob: string): string {
  let out = "";
  let braces = 0;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i] as string;
    if (c === "*") {
      if (glob[i + 1] === "*") {
        const slash = glob[i + 2] === "/";
        // `**/**/` means what `**/` means; collapsed, a long run of them stays one small program.
        if (!slash || !out.endsWith(ANY_DIRS)) out += slash ? ANY_DIRS : ".*";
        i += slash ? 2 : 1;
      } else {
        out += "[^/]*";
      }
    } else if (c === "?") {
      out += "[^/]";
    } else if (c === "[") {
      const close = glob.indexOf("]", i + 2);
      if (close === -1) {
        out += "\\[";
        continue;
      }
      const body = glob.slice(i + 1, close);
      const negated = body.startsWith("!") || body.startsWith("^");
      out += `[${negated ? "^" : ""}${(negated ? body.slice(1) : body).replace(/\\/g, "\\\\").replace(/\[/g, "\\[")}]`;
      i = close;
    } else if (c === "{") {
      braces++;
      out += "(?:";
    } else if (c === "}" && braces > 0) {
      braces--;
      out += ")";
    } else if (c === "," && braces > 0) {
      out += "|";
    } else {
      out += META.test(c) ? `\\${c}` : c;
    }
  }
  // An unclosed `{` is a typo, not an alternation: close it so the pattern still compiles.
  return `^${out}${")".repeat(braces)}$`;
}

/**
 * A matcher for `glob`: a glob with a `/` matches whole workspace paths, one without matches
 * the file name at any depth (as `rg --files -g` and `find -name` do).
 */
export function compileGlob(re2: Re2, glob: string): (path: string) => boolean {
  const re = re2.compile(globToPattern(glob));
  if (glob.includes("/")) return (path) => re.matches(path);
  return (path) => re.matches(path.slice(path.lastIndexOf("/") + 1));
}
