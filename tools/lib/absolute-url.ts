/** Link targets made absolute, for Markdown written from a page. */

/**
 * An absolute http(s) or mailto URL for an attribute value, resolved against the page's `base`;
 * anything else (javascript:, data:, a bare #) is dropped. Parentheses are percent-encoded, so
 * a `)` in the URL cannot end the Markdown link early (encodeURIComponent leaves them as they are).
 */
export function absoluteUrl(value: string | undefined, base: URL): string | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (trimmed === "" || trimmed.startsWith("#")) return undefined;
  try {
    const url = new URL(trimmed, base);
    return url.protocol === "http:" || url.protocol === "https:" || url.protocol === "mailto:"
      ? url.href.replace(/[()]/g, (c) => (c === "(" ? "%28" : "%29"))
      : undefined;
  } catch {
    return undefined;
  }
}
