/**
 * Where a JSON text first goes wrong. workerd's JSON.parse messages name the bad token but not
 * always its offset, and the model fixes its output faster when told exactly where it broke.
 * A small recursive-descent scan over RFC 8259's grammar; it only runs after JSON.parse failed.
 */

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
    const match = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(text.slice(i));
    if (match === null || match[0] === "" || match[0] === "-") fail();
    i += match?.[0].length ?? 0;
  };
  const value = (): void => {
    skip();
    const ch = text.charAt(i);
    if (ch === "{") return object();
    if (ch === "[") return array();
    if (ch === '"') return string();
    if (ch === "t") return literal("true");
    if (ch === "f") return literal("false");
    if (ch === "n") return literal("null");
    if (ch === "-" || (ch >= "0" && ch <= "9")) return number();
    fail();
  };
  const object = () => {
    i++;
    skip();
    if (text.charAt(i) === "}") return void i++;
    for (;;) {
      skip();
      if (text.charAt(i) !== '"') fail();
      string();
      skip();
      if (text.charAt(i) !== ":") fail();
      i++;
      value();
      skip();
      if (text.charAt(i) === ",") i++;
      else if (text.charAt(i) === "}") return void i++;
      else fail();
    }
  };
  const array = () => {
    i++;
    skip();
    if (text.charAt(i) === "]") return void i++;
    for (;;) {
      value();
      skip();
      if (text.charAt(i) === ",") i++;
      else if (text.charAt(i) === "]") return void i++;
      else fail();
    }
  };
  try {
    value();
    skip();
    if (i < text.length) fail();
  } catch (position) {
    if (typeof position === "number") return Math.min(position, text.length);
    throw position;
  }
  return undefined;
}
