/**
 * MCP conformance fixtures that ask the client something mid-call (scenarios
 * tools-call-sampling, tools-call-elicitation, elicitation-sep1034-defaults and
 * elicitation-sep1330-enums): the request goes out on the call's SSE stream through
 * ctx.client.request, and the client's answer comes back through the McpReplies object.
 */
import { z } from "zod";
import { registry } from "../../src/registry/registry.ts";
import type { ToolContext } from "../../src/registry/types.ts";

/** Asks the client, or fails saying why this door cannot (over /v1, or without a stream). */
function ask(ctx: ToolContext, method: string, params: Record<string, unknown>): Promise<unknown> {
  if (ctx.client.request === undefined)
    throw new Error(`This call cannot ask its client for ${method}: call it over MCP with a client that accepts text/event-stream.`);
  return ctx.client.request(method, params);
}

function describeElicitation(result: unknown): string {
  const { action, content } = (result ?? {}) as { action?: unknown; content?: unknown };
  return `action=${String(action)}, content=${JSON.stringify(content ?? {})}`;
}

registry.register({
  name: "test_sampling",
  toolset: "conformance",
  fixture: true,
  schema: () => z.object({ prompt: z.string().describe("The prompt to send to the client's model.") }),
  example: { prompt: "Say hello in French." },
  description: "Conformance fixture: asks the client's model (sampling/createMessage) and returns its answer.",
  handler: async ({ prompt }, ctx) => {
    const result = (await ask(ctx, "sampling/createMessage", { messages: [{ role: "user", content: { type: "text", text: prompt } }], maxTokens: 100 })) as {
      content?: { text?: unknown };
    };
    return `LLM response: ${String(result.content?.text ?? JSON.stringify(result))}`;
  },
});

registry.register({
  name: "test_elicitation",
  toolset: "conformance",
  fixture: true,
  schema: () => z.object({ message: z.string().describe("The message to show the user.") }),
  example: { message: "Please share your username." },
  description: "Conformance fixture: asks the user (elicitation/create) for a username and an email.",
  handler: async ({ message }, ctx) => {
    const result = await ask(ctx, "elicitation/create", {
      message,
      requestedSchema: {
        type: "object",
        properties: { username: { type: "string", description: "User's response" }, email: { type: "string", description: "User's email address" } },
        required: ["username", "email"],
      },
    });
    return `User response: ${describeElicitation(result)}`;
  },
});

registry.register({
  name: "test_elicitation_sep1034_defaults",
  toolset: "conformance",
  fixture: true,
  schema: () => z.object({}),
  example: {},
  description: "Conformance fixture: elicitation whose fields all have defaults (SEP-1034).",
  handler: async (_args, ctx) => {
    const result = await ask(ctx, "elicitation/create", {
      message: "Confirm or change these details.",
      requestedSchema: {
        type: "object",
        properties: {
          name: { type: "string", default: "John Doe" },
          age: { type: "integer", default: 30 },
          score: { type: "number", default: 95.5 },
          status: { type: "string", enum: ["active", "inactive", "pending"], default: "active" },
          verified: { type: "boolean", default: true },
        },
      },
    });
    return `Elicitation completed: ${describeElicitation(result)}`;
  },
});

registry.register({
  name: "test_elicitation_sep1330_enums",
  toolset: "conformance",
  fixture: true,
  schema: () => z.object({}),
  example: {},
  description: "Conformance fixture: elicitation with every enum form (SEP-1330).",
  handler: async (_args, ctx) => {
    const result = await ask(ctx, "elicitation/create", {
      message: "Pick some options.",
      requestedSchema: {
        type: "object",
        properties: {
          untitledSingle: { type: "string", enum: ["option1", "option2", "option3"] },
          titledSingle: {
            type: "string",
            oneOf: [
              { const: "value1", title: "First Option" },
              { const: "value2", title: "Second Option" },
              { const: "value3", title: "Third Option" },
            ],
          },
          legacyEnum: { type: "string", enum: ["opt1", "opt2", "opt3"], enumNames: ["Option One", "Option Two", "Option Three"] },
          untitledMulti: { type: "array", items: { type: "string", enum: ["option1", "option2", "option3"] } },
          titledMulti: {
            type: "array",
            items: {
              anyOf: [
                { const: "value1", title: "First Choice" },
                { const: "value2", title: "Second Choice" },
                { const: "value3", title: "Third Choice" },
              ],
            },
          },
        },
      },
    });
    return `Elicitation completed: ${describeElicitation(result)}`;
  },
});
