/**
 * MCP conformance fixture that always fails (scenario tools-call-error): the thrown error goes
 * through the pipeline like any tool failure and reaches the client as an `isError` result.
 */
import { z } from "zod";
import { registry } from "../../src/registry/registry.ts";

registry.register({
  name: "test_error_handling",
  toolset: "conformance",
  fixture: true,
  schema: () => z.object({}),
  example: {},
  description: "Conformance fixture: always fails.",
  handler: () => {
    throw new Error("This tool intentionally returns an error for testing");
  },
});
