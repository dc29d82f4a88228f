/**
 * Deletes a stored oversized result before its expiry. Harmless to the gateway, but it destroys
 * data a conversation may still need, so it declares itself `risky`: every call waits for a
 * person's approval (the approvals flow can be tried with `npm start` and this tool).
 */
import { z } from "zod";
import { registry } from "../src/registry/registry.ts";
import { storedResultKey } from "../src/storage/keys.ts";

registry.register({
  name: "delete_result",
  toolset: "maintenance",
  emoji: "🗑️",
  risky: true,
  example: { handle: "0b6e7a52-3f43-4d38-9a0e-6f1f4c2b9d71" },
  worstInputs: [
    { name: "an unknown handle", args: () => ({ handle: crypto.randomUUID() }) },
    { name: "a 1 MiB handle the uuid check refuses", args: () => ({ handle: "f".repeat(1024 * 1024) }) },
  ],
  schema: () =>
    z.object({
      handle: z.uuid().describe("The handle of a stored result (from a truncated result's read_result hint)."),
    }),
  description: "Deletes a stored tool result by its handle, so read_result can no longer read it. Needs a person's approval.",
  handler: async ({ handle }, { env }) => {
    const existed = (await env.KV.get(storedResultKey(handle))) !== null;
    await env.KV.delete(storedResultKey(handle));
    return { handle, deleted: existed, note: existed ? "The stored result is gone." : "No stored result had this handle; nothing was deleted." };
  },
});
