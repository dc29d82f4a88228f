/**
 * MCP conformance fixtures returning each content type (scenarios tools-call-simple-text,
 * -image, -audio, -embedded-resource, -mixed-content of @modelcontextprotocol/conformance, which
 * calls them by these names). Toolset `conformance`, marked `fixture`: only a key granted that
 * toolset sees them (see docs/mcp.md, "Conformance").
 */
import { z } from "zod";
import { registry } from "../../src/registry/registry.ts";
import { toolContent } from "../../src/registry/tool-content.ts";
import { RED_PIXEL_PNG, SILENT_WAV } from "../lib/conformance-media.ts";
// The conformance prompts and resources: registered on import, and discovery only finds this file.
import "../lib/conformance-prompts.ts";

registry.register({
  name: "test_simple_text",
  toolset: "conformance",
  fixture: true,
  schema: () => z.object({}),
  example: {},
  description: "Conformance fixture: returns one text block.",
  handler: () => toolContent({ type: "text", text: "This is a simple text response for testing." }),
});

registry.register({
  name: "test_image_content",
  toolset: "conformance",
  fixture: true,
  schema: () => z.object({}),
  example: {},
  description: "Conformance fixture: returns one image block (a 1x1 PNG).",
  handler: () => toolContent({ type: "image", data: RED_PIXEL_PNG, mimeType: "image/png" }),
});

registry.register({
  name: "test_audio_content",
  toolset: "conformance",
  fixture: true,
  schema: () => z.object({}),
  example: {},
  description: "Conformance fixture: returns one audio block (a short WAV).",
  handler: () => toolContent({ type: "audio", data: SILENT_WAV, mimeType: "audio/wav" }),
});

registry.register({
  name: "test_embedded_resource",
  toolset: "conformance",
  fixture: true,
  schema: () => z.object({}),
  example: {},
  description: "Conformance fixture: returns one embedded text resource.",
  handler: () =>
    toolContent({ type: "resource", resource: { uri: "test://embedded-resource", mimeType: "text/plain", text: "This is an embedded resource content." } }),
});

registry.register({
  name: "test_multiple_content_types",
  toolset: "conformance",
  fixture: true,
  schema: () => z.object({}),
  example: {},
  description: "Conformance fixture: returns text, an image and an embedded JSON resource together.",
  handler: () =>
    toolContent(
      { type: "text", text: "Multiple content types test:" },
      { type: "image", data: RED_PIXEL_PNG, mimeType: "image/png" },
      {
        type: "resource",
        resource: { uri: "test://mixed-content-resource", mimeType: "application/json", text: JSON.stringify({ test: "data", value: 123 }) },
      },
    ),
});
