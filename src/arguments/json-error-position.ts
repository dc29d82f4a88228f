/**
 * Where a JSON text first goes wrong. workerd's JSON.parse messages name the bad token but not
 * always its offset, and the model fixes its output faster when told exactly where it broke.
 * A small scan over RFC 8259's grammar, linear in the text; it only runs after JSON.parse failed.
 */

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

const WHITESPACE = new Set([" ", "\t", "\n", "\r"]);

/**
 * Offset of the first character that makes `text` invalid JSON (text.length when it ends
 * early), or undefined when it is valid.
 */
export function jsonErrorPosition(text: string): number | undefined {
  let i = 0;
  const fail = (): never => {
    throw i;
  };
  const skip = () => {
    while (i < text.length && WHITESPACE.has(text.charAt(i))) i++;
  };
  const literal = (word: string) => {
    for (const ch of word) {
      if (text.charAt(i) !== ch) fail();
      i++;
    }
  };
  const string = () => {
    i++;
    while (i < text.length) {
      const ch = text.charAt(i);
      if (ch === '"') return void i++;
      if (ch < " ") fail();
      if (ch === "\\") {
        i++;
        const esc = text.charAt(i);
        if (esc === "u") {
          for (let k = 1; k <= 4; k++) if (!/[0-9a-fA-F]/.test(text.charAt(i + k))) (i += k), fail();
          i += 4;
        } else if (!'"\\/bfnrt'.includes(esc) || esc === "") fail();
      }
      i++;
    }
    fail();
  };
  const number = () => {
    // Sticky, so the match starts at i without copying the rest of the text.
    NUMBER.lastIndex = i;
    const match = NUMBER.exec(text);
    if (match === null) fail();
    i += match?.[0].length ?? 0;
  };
  const scalar = (ch: string) => {
    if (ch === '"') return string();
    if (ch === "t") return literal("true");
    if (ch === "f") return literal("false");
    if (ch === "n") return literal("null");
    if (ch === "-" || (ch >= "0" && ch <= "9")) return number();
    fail();
  };
  // An object's member up to its value: the key, then the colon.
  const member = () => {
    skip();
    if (text.charAt(i) !== '"') fail();
    string();
    skip();
    if (text.charAt(i) !== ":") fail();
    i++;
  };
  // Containers still open, as the character that closes each. A loop with a stack of its own,
  // not recursion: arguments nested a million deep must get a position, not a stack overflow.
  const open: string[] = [];
  const document = () => {
    value: for (;;) {
      skip();
      const ch = text.charAt(i);
      if (ch === "{" || ch === "[") {
        i++;
        skip();
        const close = ch === "{" ? "}" : "]";
        if (text.charAt(i) !== close) {
          open.push(close);
          if (close === "}") member();
          continue value;
        }
        i++;
      } else scalar(ch);
      // A value ended: go on to the next element, or close what it completed.
      for (;;) {
        const close = open.at(-1);
        if (close === undefined) return;
        skip();
        const next = text.charAt(i);
        if (next === ",") {
          i++;
          if (close === "}") member();
          continue value;
        }
        if (next !== close) fail();
        i++;
        open.pop();
      }
    }
  };
  try {
    document();
    skip();
    if (i < text.length) fail();
  } catch (position) {
    if (typeof position === "number") return Math.min(position, text.length);
    throw position;
  }
  return undefined;
}
