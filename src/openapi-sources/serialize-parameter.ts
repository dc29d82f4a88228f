/**
 * One parameter's value written the way its `style` and `explode` say (OpenAPI 3.1 §4.8.12.4,
 * "Style Values", whose examples follow RFC 6570). Values are encoded here, delimiters are not:
 * a comma, dot or semicolon inside a value is percent-encoded, so it can never be read as a
 * delimiter, and a `/` inside a path value is `%2F`, so it can never add a path segment.
 *
 * Only what the styles define is written: a nested object or array (an array of objects in a
 * query, an object inside a deepObject) has no serialisation in the spec, so it is refused with
 * the field and the reason rather than guessed at (servers disagree on `a[b][c]`).
 */
import type { OperationParameter } from "./operation.ts";

/** Why a value cannot be written, for the caller to fix. */
export class SerializeError extends Error {
  override readonly name = "SerializeError";
}

type Scalar = string | number | boolean | null;

/** RFC 3986 unreserved characters stay as they are; everything else, `!'()*` included, is escaped. */
export function encodeValue(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/**
 * `allowReserved` (query only): RFC 3986 reserved characters are sent as they are, except the
 * ones that would end the value inside a query string (`&`, `=`, `#`, `+`).
 */
function encodeReserved(value: string): string {
  return encodeValue(value).replace(/%(3A|2F|3F|40|21|24|27|28|29|2A|2C|3B|5B|5D)/g, (escaped) => decodeURIComponent(escaped));
}

function scalarText(value: Scalar): string {
  return value === null ? "" : String(value);
}

function isScalar(value: unknown): value is Scalar {
  return value === null || typeof value === "string" || typeof value === "number" || typeof value === "boolean";
}

/** The value as scalars: itself, the array's items, or the object's name-value pairs; anything deeper is refused. */
function flatten(
  param: OperationParameter,
  value: unknown,
): { kind: "scalar"; value: Scalar } | { kind: "array"; items: Scalar[] } | { kind: "object"; pairs: [string, Scalar][] } {
  if (isScalar(value)) return { kind: "scalar", value };
  const nested = (): never => {
    throw new SerializeError(
      `${param.in} parameter '${param.arg}' holds a nested object or array, which style '${param.style}' cannot write; send ${Array.isArray(value) ? "an array of strings, numbers or booleans" : "an object whose values are strings, numbers or booleans"}`,
    );
  };
  if (Array.isArray(value)) {
    if (!value.every(isScalar)) return nested();
    return { kind: "array", items: value };
  }
  if (typeof value === "object") {
    const pairs = Object.entries(value as Record<string, unknown>);
    if (!pairs.every(([, item]) => isScalar(item))) return nested();
    return { kind: "object", pairs: pairs as [string, Scalar][] };
  }
  throw new SerializeError(`${param.in} parameter '${param.arg}' has a value of type ${typeof value}, which cannot be sent`);
}

/** The path text that replaces `{name}` in the template (styles simple, label, matrix). */
export function pathValue(param: OperationParameter, value: unknown): string {
  const flat = flatten(param, value);
  const enc = encodeValue;
  const name = enc(param.name);
  const { style, explode } = param;
  if (style !== "simple" && style !== "label" && style !== "matrix")
    throw new SerializeError(`path parameter '${param.arg}' has style '${style}', which is not a path style (simple, label or matrix)`);
  if (flat.kind === "scalar") {
    const text = enc(scalarText(flat.value));
    return style === "simple" ? text : style === "label" ? `.${text}` : text === "" ? `;${name}` : `;${name}=${text}`;
  }
  if (flat.kind === "array") {
    const items = flat.items.map((item) => enc(scalarText(item)));
    if (style === "simple") return items.join(",");
    if (style === "label") return `.${items.join(explode ? "." : ",")}`;
    return explode ? items.map((item) => `;${name}=${item}`).join("") : `;${name}=${items.join(",")}`;
  }
  const pairs = flat.pairs.map(([key, item]) => [enc(key), enc(scalarText(item))] as const);
  if (style === "simple") return explode ? pairs.map(([k, v]) => `${k}=${v}`).join(",") : pairs.flat().join(",");
  if (style === "label") return `.${explode ? pairs.map(([k, v]) => `${k}=${v}`).join(".") : pairs.flat().join(",")}`;
  return explode ? pairs.map(([k, v]) => `;${k}=${v}`).join("") : `;${name}=${pairs.flat().join(",")}`;
}

/** The `name=value` pieces one query parameter adds to the query string (styles form, spaceDelimited, pipeDelimited, deepObject). */
export function queryPieces(param: OperationParameter, value: unknown): string[] {
  const flat = flatten(param, value);
  const enc = param.allowReserved ? encodeReserved : encodeValue;
  const name = encodeValue(param.name);
  const { style, explode } = param;
  if (style === "deepObject") {
    if (flat.kind !== "object" || !explode)
      throw new SerializeError(`query parameter '${param.arg}' has style deepObject, which writes only an object of scalar values with explode true`);
    return flat.pairs.map(([key, item]) => `${name}%5B${encodeValue(key)}%5D=${enc(scalarText(item))}`);
  }
  if (style !== "form" && style !== "spaceDelimited" && style !== "pipeDelimited")
    throw new SerializeError(`query parameter '${param.arg}' has style '${style}', which is not a query style`);
  if (flat.kind === "scalar") return [`${name}=${enc(scalarText(flat.value))}`];
  const delimiter = style === "form" ? "," : style === "spaceDelimited" ? "%20" : "|";
  if (flat.kind === "array") {
    const items = flat.items.map((item) => enc(scalarText(item)));
    return explode ? items.map((item) => `${name}=${item}`) : [`${name}=${items.join(delimiter)}`];
  }
  // spaceDelimited and pipeDelimited define no exploded object: each pair would be a parameter of its own name.
  if (explode && style === "form") return flat.pairs.map(([key, item]) => `${encodeValue(key)}=${enc(scalarText(item))}`);
  if (explode) throw new SerializeError(`query parameter '${param.arg}' has style ${style} with explode true, which defines no way to write an object`);
  return [`${name}=${flat.pairs.map(([key, item]) => `${encodeValue(key)}${delimiter}${enc(scalarText(item))}`).join(delimiter)}`];
}

/** A header's value (style simple); characters a header cannot carry are refused, never sent. */
export function headerValue(param: OperationParameter, value: unknown): string {
  const flat = flatten(param, value);
  let text: string;
  if (flat.kind === "scalar") text = scalarText(flat.value);
  else if (flat.kind === "array") text = flat.items.map(scalarText).join(",");
  else text = flat.pairs.map(([key, item]) => (param.explode ? `${key}=${scalarText(item)}` : `${key},${scalarText(item)}`)).join(",");
  // RFC 9110 §5.5: visible characters, space, tab and obs-text only; a CR or LF would split the header
  // (a request smuggled), and fetch throws on the rest.
  if (/[^\t\u0020-\u007e\u0080-\u00ff]/.test(text))
    throw new SerializeError(`header parameter '${param.arg}' holds a line break, control or non-Latin-1 character, which a header cannot carry`);
  return text;
}

/** One cookie's `name=value` (style form); its value is percent-encoded so `;` cannot start another cookie. */
export function cookiePiece(param: OperationParameter, value: unknown): string {
  const flat = flatten(param, value);
  if (flat.kind === "object") throw new SerializeError(`cookie parameter '${param.arg}' is an object, which a cookie cannot carry; send a string`);
  const text = flat.kind === "scalar" ? encodeValue(scalarText(flat.value)) : flat.items.map((item) => encodeValue(scalarText(item))).join(",");
  return `${encodeValue(param.name)}=${text}`;
}
