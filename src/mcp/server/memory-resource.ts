/**
 * The calling key's memory as the MCP resource `toolgate://memory` (the same JSON as
 * GET /v1/memory), so a client can put it in its prompt, as Hermes does at session start. It is
 * listed and readable where the key may use the `memory` tool (on /mcp/{toolset}, only when
 * that toolset has it): a server without the tool offers no memory either.
 */
import { memoryStub } from "../../memory/memory-stub.ts";
import { toMemoryWire } from "../../memory/memory-wire.ts";

export const MEMORY_RESOURCE_URI = "toolgate://memory";

/** The tool whose access decides whether the resource is offered. */
export const MEMORY_TOOL = "memory";

/** `resources/list`'s entry for it. */
export const MEMORY_RESOURCE = {
  uri: MEMORY_RESOURCE_URI,
  name: "memory",
  title: "Memory",
  description:
    "This API key's memory: the entries of the memory tool's two stores (`memory`, the agent's notes; `user`, what it knows about the user), with their character budgets.",
  mimeType: "application/json",
};

/** `resources/read` of the memory resource: its contents. */
export async function readMemoryResource(env: Env, keyId: string): Promise<{ contents: { uri: string; mimeType: string; text: string }[] }> {
  const snapshot = await memoryStub(env, keyId).read();
  return { contents: [{ uri: MEMORY_RESOURCE_URI, mimeType: MEMORY_RESOURCE.mimeType, text: JSON.stringify(toMemoryWire(keyId, snapshot)) }] };
}
