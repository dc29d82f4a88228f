/**
 * MCP conformance fixtures that are not tools: the prompts and resources the suite's
 * `prompts-*`, `resources-read-*` and `resources-templates-read` scenarios ask for by these
 * names and URIs. Toolset `conformance`, marked `fixture`, like the fixture tools: only a key
 * that names that toolset reaches them. Discovery imports files with tool registrations only, so
 * tools/conformance/content-tools.ts imports this one.
 */
import { mcpContent, type Registration } from "../../src/registry/mcp-content.ts";
import { RED_PIXEL_PNG } from "./conformance-media.ts";

const TOOLSET = "conformance";

const ARG1_VALUES = ["test", "testing", "tested", "paris", "park"];

/** A fixture that fails to register is a broken build, not something to skip. */
function must(registration: Registration): void {
  if (!registration.ok) throw new Error(`conformance fixture: ${registration.reason}`);
}

must(
  mcpContent.registerPrompt({
    name: "test_simple_prompt",
    toolset: TOOLSET,
    fixture: true,
    description: "Conformance fixture: a prompt without arguments.",
    get: () => ({ messages: [{ role: "user", content: { type: "text", text: "This is a simple prompt for testing." } }] }),
  }),
);

must(
  mcpContent.registerPrompt({
    name: "test_prompt_with_arguments",
    toolset: TOOLSET,
    fixture: true,
    description: "Conformance fixture: a prompt that puts its two arguments into its message.",
    arguments: [
      { name: "arg1", description: "First test argument", required: true },
      { name: "arg2", description: "Second test argument", required: true },
    ],
    get: ({ arg1 = "", arg2 = "" }) => ({
      messages: [{ role: "user", content: { type: "text", text: `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'` } }],
    }),
    // The suite's completion-complete scenario asks for arg1; the values it starts with.
    complete: ({ argument, value }) => ({ values: argument === "arg1" ? ARG1_VALUES.filter((known) => known.startsWith(value)) : [] }),
  }),
);

must(
  mcpContent.registerPrompt({
    name: "test_prompt_with_embedded_resource",
    toolset: TOOLSET,
    fixture: true,
    description: "Conformance fixture: a prompt whose message embeds the named resource.",
    arguments: [{ name: "resourceUri", description: "URI of the resource to embed", required: true }],
    get: ({ resourceUri = "" }) => ({
      messages: [
        { role: "user", content: { type: "resource", resource: { uri: resourceUri, mimeType: "text/plain", text: "Embedded resource content for testing." } } },
        { role: "user", content: { type: "text", text: "Please process the embedded resource above." } },
      ],
    }),
  }),
);

must(
  mcpContent.registerPrompt({
    name: "test_prompt_with_image",
    toolset: TOOLSET,
    fixture: true,
    description: "Conformance fixture: a prompt with an image (a 1x1 PNG).",
    get: () => ({
      messages: [
        { role: "user", content: { type: "image", data: RED_PIXEL_PNG, mimeType: "image/png" } },
        { role: "user", content: { type: "text", text: "Please analyze the image above." } },
      ],
    }),
  }),
);

must(
  mcpContent.registerResource({
    uri: "test://static-text",
    name: "static-text",
    toolset: TOOLSET,
    fixture: true,
    description: "Conformance fixture: a text resource.",
    mimeType: "text/plain",
    read: () => [{ uri: "test://static-text", mimeType: "text/plain", text: "This is the content of the static text resource." }],
  }),
);

must(
  mcpContent.registerResource({
    uri: "test://static-binary",
    name: "static-binary",
    toolset: TOOLSET,
    fixture: true,
    description: "Conformance fixture: a binary resource (a 1x1 PNG).",
    mimeType: "image/png",
    read: () => [{ uri: "test://static-binary", mimeType: "image/png", blob: RED_PIXEL_PNG }],
  }),
);

must(
  mcpContent.registerResource({
    uri: "test://watched-resource",
    name: "watched-resource",
    toolset: TOOLSET,
    fixture: true,
    description: "Conformance fixture: the resource the suite's resources-subscribe and resources-unsubscribe scenarios subscribe to.",
    mimeType: "text/plain",
    read: () => [{ uri: "test://watched-resource", mimeType: "text/plain", text: "Watched resource content." }],
  }),
);

must(
  mcpContent.registerTemplate({
    uriTemplate: "test://template/{id}/data",
    name: "template-data",
    toolset: TOOLSET,
    fixture: true,
    description: "Conformance fixture: a resource template whose content names its id.",
    mimeType: "application/json",
    read: (uri, { id = "" }) => [{ uri, mimeType: "application/json", text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }) }],
  }),
);
