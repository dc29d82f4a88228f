/**
 * What the Markdown builder makes of each HTML element by its tag alone: page chrome it drops,
 * blocks that start a new line or paragraph, inline emphasis and its marker.
 */

const SKIPPED = new Set([
  "script",
  "style",
  "noscript",
  "template",
  "svg",
  "math",
  "canvas",
  "iframe",
  "object",
  "nav",
  "aside",
  "footer",
  "form",
  "button",
  "select",
  "dialog",
]);
const CHROME_ROLES = new Set(["navigation", "banner", "contentinfo", "complementary", "search", "menu", "menubar"]);
const BLANK_LINE_BLOCKS = new Set(["p", "blockquote", "pre", "table", "ul", "ol", "dl", "figure", "section", "article", "main", "header", "details"]);
const LINE_BLOCKS = new Set(["div", "dt", "dd", "figcaption", "summary", "address", "caption", "center"]);

/** The Markdown marker around each emphasis element's text. */
export const EMPHASIS: Readonly<Record<string, string>> = { strong: "**", b: "**", em: "_", i: "_", del: "~~", s: "~~" };

/** True for an element dropped with everything in it: scripts, styles, page chrome, hidden elements. */
export function isDropped(tag: string, attributes: Readonly<Record<string, string>>): boolean {
  const role = attributes.role;
  return SKIPPED.has(tag) || "hidden" in attributes || attributes["aria-hidden"] === "true" || (role !== undefined && CHROME_ROLES.has(role));
}

/** The lines a block element puts around itself (2: a blank line, 1: a line break), or undefined for an inline one. */
export function blockGap(tag: string): 1 | 2 | undefined {
  if (BLANK_LINE_BLOCKS.has(tag)) return 2;
  if (LINE_BLOCKS.has(tag)) return 1;
  return undefined;
}
