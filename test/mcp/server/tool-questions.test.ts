import { describe, expect, it } from "vitest";
import { ToolFailureError } from "../../../src/errors/tool-failure.ts";
import { MAX_STATE_CHARS, type RoundMemory } from "../../../src/mcp/server/request-state.ts";
import { ToolQuestions } from "../../../src/mcp/server/tool-questions.ts";

const FORM = { message: "Name?", requestedSchema: { type: "object", properties: {} } };
const ELICITATION = { elicitation: {} };

/** The failure kind an ask ended with. */
async function failureOf(asking: Promise<unknown>): Promise<string> {
  try {
    await asking;
  } catch (error) {
    if (error instanceof ToolFailureError) return error.failure.kind;
    throw error;
  }
  throw new Error("the question was answered");
}

describe("ToolQuestions", () => {
  it("refuses the question whose round would outgrow the state, and keeps the ones before it", async () => {
    // A state one short question away from the bound: the first fits, the second cannot.
    const questions = new ToolQuestions("t", {}, undefined, ELICITATION, () => MAX_STATE_CHARS - 50);
    const kinds = await Promise.all([
      failureOf(questions.ask("elicitation/create", { ...FORM, message: "first?" })),
      failureOf(questions.ask("elicitation/create", { ...FORM, message: "second?" })),
    ]);
    expect(kinds).toEqual(["client_input_needed", "client_answers_too_large"]);
    expect(questions.tooLarge?.chars).toBeGreaterThan(MAX_STATE_CHARS);
  });

  it("serialises the state once per leg, and again only after the tool carries something", async () => {
    const sizes: RoundMemory[] = [];
    const questions = new ToolQuestions("t", {}, undefined, ELICITATION, (memory) => {
      sizes.push(memory);
      return 1_000;
    });
    for (let i = 0; i < 50; i++) expect(await failureOf(questions.ask("elicitation/create", { ...FORM, message: `q${i}?` }))).toBe("client_input_needed");
    expect(sizes).toHaveLength(1);
    questions.resume.carry({ rounds: [] });
    expect(await failureOf(questions.ask("elicitation/create", { ...FORM, message: "after the carry?" }))).toBe("client_input_needed");
    expect(sizes).toHaveLength(2);
    expect(sizes[1]).toMatchObject({ kind: "questions", carried: { rounds: [] } });
    expect(questions.tooLarge).toBeUndefined();
  });
});
