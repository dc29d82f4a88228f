/**
 * Prompts and resources over /mcp: the conformance fixtures (tools/lib/conformance-prompts.ts)
 * listed, read and filled in for a key that names their toolset, hidden from every other key,
 * narrowed by a key's policy globs, and bad prompt arguments answered as invalid params.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { createKey } from "../../support/create-key.ts";
import { rpc } from "../helpers.ts";

let fixtures: string;
let narrowed: string;

beforeAll(async () => {
  fixtures = (await createKey({ name: "content-fixtures", role: "agent", toolsets: ["conformance"] })).key;
  narrowed = (
    await createKey({
      name: "content-narrowed",
      role: "agent",
      toolsets: ["conformance"],
      policy: { mode: "deny", patterns: ["test_prompt_with_*", "static-*"] },
    })
  ).key;
});

const names = (items: unknown, field = "name") => (items as Record<string, string>[]).map((item) => item[field]);

describe("prompts", () => {
  it("lists the fixture prompts for a key that names their toolset, and fills in arguments", async () => {
    const listed = await rpc("/mcp/conformance", "prompts/list", {}, { token: fixtures });
    expect(names(listed.result?.prompts)).toEqual([
      "test_simple_prompt",
      "test_prompt_with_arguments",
      "test_prompt_with_embedded_resource",
      "test_prompt_with_image",
    ]);
    const got = await rpc(
      "/mcp/conformance",
      "prompts/get",
      { name: "test_prompt_with_arguments", arguments: { arg1: "one", arg2: "two" } },
      { token: fixtures },
    );
    expect(got.result).toEqual({ messages: [{ role: "user", content: { type: "text", text: "Prompt with arguments: arg1='one', arg2='two'" } }] });
  });

  it("answers a missing required argument, a non-string one and an unknown prompt with invalid params", async () => {
    const missing = await rpc("/mcp", "prompts/get", { name: "test_prompt_with_arguments", arguments: { arg1: "one" } }, { token: fixtures });
    expect(missing.error).toMatchObject({ code: -32602, message: "Invalid params: prompt 'test_prompt_with_arguments' needs the argument 'arg2'." });
    const notString = await rpc("/mcp", "prompts/get", { name: "test_prompt_with_arguments", arguments: { arg1: 1, arg2: "x" } }, { token: fixtures });
    expect(notString.error?.message).toContain("argument 'arg1' of prompt 'test_prompt_with_arguments' must be a string");
    expect((await rpc("/mcp", "prompts/get", { name: "nope" }, { token: fixtures })).error).toMatchObject({
      code: -32602,
      message: expect.stringContaining("Unknown prompt: nope"),
    });
  });

  it("hides fixtures from an unrestricted key and from another toolset's virtual server", async () => {
    expect((await rpc("/mcp", "prompts/list")).result).toEqual({ prompts: [] });
    expect((await rpc("/mcp", "prompts/get", { name: "test_simple_prompt" })).error).toMatchObject({ code: -32602 });
    expect((await rpc("/mcp/core", "prompts/list", {}, { token: fixtures })).result).toEqual({ prompts: [] });
  });

  it("applies the key's policy globs to prompt and resource names", async () => {
    expect(names((await rpc("/mcp", "prompts/list", {}, { token: narrowed })).result?.prompts)).toEqual(["test_simple_prompt"]);
    expect((await rpc("/mcp", "prompts/get", { name: "test_prompt_with_image" }, { token: narrowed })).error).toMatchObject({ code: -32602 });
    expect(names((await rpc("/mcp", "resources/list", {}, { token: narrowed })).result?.resources, "uri")).not.toContain("test://static-text");
    expect((await rpc("/mcp", "resources/read", { uri: "test://static-text" }, { token: narrowed })).error).toMatchObject({ code: -32002 });
  });
});

describe("resources", () => {
  it("lists and reads the fixture resources, text and binary, and a template with its id filled in", async () => {
    const listed = await rpc("/mcp/conformance", "resources/list", {}, { token: fixtures });
    expect(names(listed.result?.resources, "uri")).toEqual(["test://static-text", "test://static-binary", "test://watched-resource"]);
    const templates = await rpc("/mcp/conformance", "resources/templates/list", {}, { token: fixtures });
    expect(names(templates.result?.resourceTemplates, "uriTemplate")).toEqual(["toolgate://results/{handle}", "test://template/{id}/data"]);
    const text = await rpc("/mcp/conformance", "resources/read", { uri: "test://static-text" }, { token: fixtures });
    expect(text.result).toEqual({
      contents: [{ uri: "test://static-text", mimeType: "text/plain", text: "This is the content of the static text resource." }],
    });
    const binary = await rpc("/mcp/conformance", "resources/read", { uri: "test://static-binary" }, { token: fixtures });
    expect(binary.result).toMatchObject({ contents: [{ uri: "test://static-binary", mimeType: "image/png", blob: expect.stringMatching(/^iVBOR/) }] });
    const templated = await rpc("/mcp/conformance", "resources/read", { uri: "test://template/a%20b/data" }, { token: fixtures });
    expect(JSON.parse((templated.result?.contents as { text: string }[])[0]?.text ?? "")).toMatchObject({ id: "a b" });
  });

  it("answers a fixture URI to an unrestricted key like an unknown one", async () => {
    expect((await rpc("/mcp", "resources/read", { uri: "test://static-text" })).error).toMatchObject({ code: -32002 });
    expect((await rpc("/mcp", "resources/read", { uri: "test://template/1/data" })).error).toMatchObject({ code: -32002 });
  });
});
