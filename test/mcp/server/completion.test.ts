/**
 * completion/complete for toolgate's own prompts: the prompt's own suggestions, none for a prompt
 * without any, and clear refusals for what is unknown or malformed. The conformance fixtures are
 * reachable only by a key that names the `conformance` toolset.
 */
import { describe, expect, it } from "vitest";
import { createKey } from "../../support/create-key.ts";
import { rpc } from "../helpers.ts";

const promptRef = (name: string) => ({ type: "ref/prompt", name });

describe("completion/complete", () => {
  it("answers a prompt argument with the prompt's values that start with what was typed", async () => {
    const { key } = await createKey({ name: "complete-fixture", role: "agent", toolsets: ["conformance"] });
    const answer = await rpc(
      "/mcp/conformance",
      "completion/complete",
      { ref: promptRef("test_prompt_with_arguments"), argument: { name: "arg1", value: "pa" } },
      { token: key },
    );
    expect(answer.result).toEqual({ completion: { values: ["paris", "park"] } });
    const other = await rpc(
      "/mcp/conformance",
      "completion/complete",
      { ref: promptRef("test_prompt_with_arguments"), argument: { name: "arg2", value: "" } },
      { token: key },
    );
    expect(other.result).toEqual({ completion: { values: [] } });
  });

  it("answers a prompt without suggestions with none", async () => {
    const { key } = await createKey({ name: "complete-plain", role: "agent", toolsets: ["conformance"] });
    const answer = await rpc(
      "/mcp/conformance",
      "completion/complete",
      { ref: promptRef("test_simple_prompt"), argument: { name: "x", value: "" } },
      { token: key },
    );
    expect(answer.result).toEqual({ completion: { values: [] } });
  });

  it("answers a prompt the key cannot reach like an unknown one, and malformed params with what to send", async () => {
    const { key } = await createKey({ name: "complete-refusals", role: "agent" });
    const hidden = await rpc(
      "/mcp",
      "completion/complete",
      { ref: promptRef("test_prompt_with_arguments"), argument: { name: "arg1", value: "" } },
      { token: key },
    );
    expect(hidden.error).toMatchObject({ code: -32602, message: expect.stringMatching(/Unknown prompt: test_prompt_with_arguments/) });
    const template = await rpc(
      "/mcp",
      "completion/complete",
      { ref: { type: "ref/resource", uri: "nope://{x}" }, argument: { name: "x", value: "" } },
      { token: key },
    );
    expect(template.error?.message).toMatch(/Unknown resource template/);
    const malformed = await rpc("/mcp", "completion/complete", { ref: promptRef("p") }, { token: key });
    expect(malformed.error).toMatchObject({ code: -32602, message: expect.stringMatching(/params.argument/) });
    const long = await rpc("/mcp", "completion/complete", { ref: promptRef("p"), argument: { name: "a", value: "x".repeat(2000) } }, { token: key });
    expect(long.error?.message).toMatch(/at most 1024/);
  });
});
