/**
 * Decodes character references in the raw text HTMLRewriter hands us (it passes text through as
 * written, `&amp;` and all). Numeric references in full; named ones for the set that real pages
 * use in running text, since the full table (2,000+ names) would cost more bundle than it saves.
 * An unknown name is left as written, which reads fine in Markdown.
 */

const NAMED: Readonly<Record<string, string>> = {
  amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " ", ensp: " ", emsp: " ", thinsp: " ",
  ndash: "–", mdash: "—", hellip: "…", lsquo: "‘", rsquo: "’", ldquo: "“", rdquo: "”", laquo: "«", raquo: "»",
  bull: "•", middot: "·", copy: "©", reg: "®", trade: "™", deg: "°", plusmn: "±", times: "×", divide: "÷",
  para: "¶", sect: "§", euro: "€", pound: "£", yen: "¥", cent: "¢", larr: "←", rarr: "→", uarr: "↑", darr: "↓",
  shy: "", zwj: "‍", zwnj: "‌", iexcl: "¡", iquest: "¿", frac12: "½", frac14: "¼", frac34: "¾", micro: "µ",
};

const REFERENCE = /&(?:#(\d{1,7})|#[xX]([0-9a-fA-F]{1,6})|([A-Za-z][A-Za-z0-9]{1,31}));?/g;

function fromCodePoint(code: number): string {
  // The HTML parser's replacements: NUL, surrogates and beyond-Unicode become U+FFFD.
  if (code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) return "\uFFFD";
  return String.fromCodePoint(code);
}

/** `text` with its character references replaced by the characters they name. */
export function decodeEntities(text: string): string {
  if (!text.includes("&")) return text;
  return text.replace(REFERENCE, (whole, decimal: string | undefined, hex: string | undefined, name: string | undefined) => {
    if (decimal !== undefined) return fromCodePoint(Number.parseInt(decimal, 10));
    if (hex !== undefined) return fromCodePoint(Number.parseInt(hex, 16));
    return (name !== undefined ? NAMED[name] : undefined) ?? whole;
  });
}
