/**
 * buildRequest: the OpenAPI 3.1 style table (§4.8.12.4's examples, `color` with the values
 * blue / [blue, black, brown] / {R: 100, G: 200, B: 150}) for every location, encoding that keeps
 * values from being read as delimiters or path steps, bodies per content type, and refusals of
 * what a style cannot write.
 */
import { describe, expect, it } from "vitest";
import { buildRequest } from "../../src/openapi-sources/build-request.ts";
import type { OpenApiOperation, OperationParameter } from "../../src/openapi-sources/operation.ts";

const BASE = "https://api.example.com/v1";
const ARRAY = ["blue", "black", "brown"];
const OBJECT = { R: 100, G: 200, B: 150 };

function param(over: Partial<OperationParameter> & Pick<OperationParameter, "in" | "style" | "explode">): OperationParameter {
  return { name: "color", arg: "color", required: false, allowReserved: false, ...over };
}

function operation(parameters: OperationParameter[], over: Partial<OpenApiOperation> = {}): OpenApiOperation {
  return { name: "t__op", method: "get", path: "/items", description: "", inputSchema: { type: "object" }, parameters, tags: [], ...over };
}

function built(op: OpenApiOperation, args: Record<string, unknown>) {
  const result = buildRequest(op, args, BASE);
  if (!result.ok) throw new Error(`refused: ${JSON.stringify(result.issues)}`);
  return result.request;
}

function queryOf(style: OperationParameter["style"], explode: boolean, value: unknown): string {
  return new URL(built(operation([param({ in: "query", style, explode })]), { color: value }).url).search;
}

function pathOf(style: OperationParameter["style"], explode: boolean, value: unknown): string {
  const op = operation([param({ in: "path", style, explode, required: true })], { path: "/items/{color}" });
  return new URL(built(op, { color: value }).url).pathname.slice("/v1/items/".length);
}

describe("buildRequest", () => {
  it.each([
    ["form", false, "blue", "?color=blue"],
    ["form", false, ARRAY, "?color=blue,black,brown"],
    ["form", false, OBJECT, "?color=R,100,G,200,B,150"],
    ["form", true, ARRAY, "?color=blue&color=black&color=brown"],
    ["form", true, OBJECT, "?R=100&G=200&B=150"],
    ["spaceDelimited", false, ARRAY, "?color=blue%20black%20brown"],
    ["spaceDelimited", false, OBJECT, "?color=R%20100%20G%20200%20B%20150"],
    ["spaceDelimited", true, ARRAY, "?color=blue&color=black&color=brown"],
    ["pipeDelimited", false, ARRAY, "?color=blue|black|brown"],
    ["pipeDelimited", false, OBJECT, "?color=R|100|G|200|B|150"],
    ["pipeDelimited", true, ARRAY, "?color=blue&color=black&color=brown"],
    ["deepObject", true, OBJECT, "?color%5BR%5D=100&color%5BG%5D=200&color%5BB%5D=150"],
  ] as const)("writes a query parameter with style %s, explode %s: %j as %s", (style, explode, value, expected) => {
    expect(queryOf(style, explode, value)).toBe(expected);
  });

  it.each([
    ["simple", false, "blue", "blue"],
    ["simple", false, ARRAY, "blue,black,brown"],
    ["simple", false, OBJECT, "R,100,G,200,B,150"],
    ["simple", true, OBJECT, "R=100,G=200,B=150"],
    ["label", false, "blue", ".blue"],
    ["label", false, ARRAY, ".blue,black,brown"],
    ["label", true, ARRAY, ".blue.black.brown"],
    ["label", true, OBJECT, ".R=100.G=200.B=150"],
    ["matrix", false, "blue", ";color=blue"],
    ["matrix", false, ARRAY, ";color=blue,black,brown"],
    ["matrix", true, ARRAY, ";color=blue;color=black;color=brown"],
    ["matrix", false, OBJECT, ";color=R,100,G,200,B,150"],
    ["matrix", true, OBJECT, ";R=100;G=200;B=150"],
  ] as const)("writes a path parameter with style %s, explode %s: %j as %s", (style, explode, value, expected) => {
    expect(pathOf(style, explode, value)).toBe(expected);
  });

  it("encodes delimiters inside values, so a comma or ampersand stays part of its value", () => {
    expect(queryOf("form", false, ["a,b", "c&d=e"])).toBe("?color=a%2Cb,c%26d%3De");
    expect(pathOf("simple", false, ["a,b", "c;d"])).toBe("a%2Cb,c%3Bd");
  });

  it("never lets a path parameter add a segment: '/' and '../' are encoded into the one segment", () => {
    const op = operation([param({ name: "petId", arg: "petId", in: "path", style: "simple", explode: false, required: true })], {
      path: "/pets/{petId}/photos",
    });
    const url = new URL(built(op, { petId: "../../admin/users?x=1#f" }).url);
    expect(url.pathname).toBe("/v1/pets/..%2F..%2Fadmin%2Fusers%3Fx%3D1%23f/photos");
    expect(url.search).toBe("");
    expect(url.hash).toBe("");
    expect(new URL(built(op, { petId: "a\\b" }).url).pathname).toBe("/v1/pets/a%5Cb/photos");
  });

  it.each(["..", ".", "%2e%2E", ".%2e"])("refuses a path parameter of %s, which the URL parser would resolve as a path step", (value) => {
    const op = operation([param({ name: "petId", arg: "petId", in: "path", style: "simple", explode: false, required: true })], { path: "/pets/{petId}" });
    const result = buildRequest(op, { petId: value }, BASE);
    if (value.includes("%")) {
      // '%' is encoded as %25, so these are ordinary values, not steps.
      expect(result.ok && new URL(result.request.url).pathname).toBe(`/v1/pets/${value.replaceAll("%", "%25")}`);
      return;
    }
    expect(result).toMatchObject({ ok: false, issues: [{ path: "petId", message: expect.stringContaining("path step") }] });
  });

  it("refuses an empty path parameter, which would call another path", () => {
    const op = operation([param({ name: "petId", arg: "petId", in: "path", style: "simple", explode: false, required: true })], {
      path: "/pets/{petId}/photos",
    });
    expect(buildRequest(op, { petId: "" }, BASE)).toMatchObject({ ok: false, issues: [{ path: "petId" }] });
  });

  it("keeps the base URL's own path and query", () => {
    const op = operation([param({ in: "query", style: "form", explode: true })]);
    expect(buildRequest(op, { color: "x y" }, "https://api.example.com/base/?version=2")).toMatchObject({
      ok: true,
      request: { url: "https://api.example.com/base/items?version=2&color=x%20y" },
    });
  });

  it("sends reserved characters as they are only where allowReserved says so", () => {
    const op = operation([param({ in: "query", style: "form", explode: true, allowReserved: true })]);
    expect(new URL(built(op, { color: "a/b:c?d&e" }).url).search).toBe("?color=a/b:c?d%26e");
  });

  it.each([
    ["deepObject of a nested object", "deepObject", true, { a: { b: 1 } }],
    ["deepObject without explode", "deepObject", false, { a: 1 }],
    ["deepObject of an array", "deepObject", true, ["a"]],
    ["form array of objects", "form", true, [{ a: 1 }]],
    ["pipeDelimited exploded object", "pipeDelimited", true, { a: 1 }],
  ] as const)("refuses a %s with the parameter's name and the reason", (_what, style, explode, value) => {
    const result = buildRequest(operation([param({ in: "query", style, explode })]), { color: value }, BASE);
    expect(result).toMatchObject({ ok: false, issues: [{ path: "color", message: expect.stringMatching(/style|nested/) }] });
  });

  it("writes headers and cookies, and refuses a header value with a line break", () => {
    const op = operation([
      param({ name: "X-Colors", arg: "X-Colors", in: "header", style: "simple", explode: true }),
      param({ name: "session", arg: "session", in: "cookie", style: "form", explode: true }),
    ]);
    const request = built(op, { "X-Colors": OBJECT, session: "a b;c" });
    expect(request.headers).toEqual({ "X-Colors": "R=100,G=200,B=150", cookie: "session=a%20b%3Bc" });
    expect(buildRequest(op, { "X-Colors": "a\r\nx-injected: 1" }, BASE)).toMatchObject({ ok: false, issues: [{ path: "X-Colors" }] });
  });

  it("writes JSON, form-urlencoded, multipart and text bodies", async () => {
    const post = (contentType: NonNullable<OpenApiOperation["body"]>["contentType"]) =>
      operation([], { method: "post", body: { contentType, required: true } });
    const json = built(post("application/json"), { body: { name: "Rex", tags: ["a"] } });
    expect(json).toMatchObject({ method: "POST", body: '{"name":"Rex","tags":["a"]}', headers: { "content-type": "application/json" } });

    const form = built(post("application/x-www-form-urlencoded"), { body: { name: "Rex Jr", tag: ["a", "b"] } });
    expect(String(form.body)).toBe("name=Rex+Jr&tag=a&tag=b");

    const multipart = built(post("multipart/form-data"), { body: { name: "Rex", meta: { age: 3 } } });
    const parts = multipart.body as FormData;
    expect(parts.get("name")).toBe("Rex");
    const meta = parts.get("meta") as File;
    expect([meta.type, await meta.text()]).toEqual(["application/json", '{"age":3}']);

    expect(built(post("text/plain"), { body: "hello" })).toMatchObject({ body: "hello", headers: { "content-type": "text/plain;charset=UTF-8" } });
    expect(buildRequest(post("text/plain"), { body: { a: 1 } }, BASE)).toMatchObject({ ok: false, issues: [{ path: "body" }] });
    expect(buildRequest(post("application/x-www-form-urlencoded"), { body: { a: { b: 1 } } }, BASE)).toMatchObject({ ok: false, issues: [{ path: "body" }] });
  });
});
