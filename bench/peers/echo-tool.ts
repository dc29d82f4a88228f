/**
 * What every peer serves: the trivial echo tool toolgate's `echo` is (tools/echo.ts), so the
 * servers differ only in how they get a `tools/call` to it and back.
 */
import { z } from "zod";

export const ECHO_NAME = "echo";
export const ECHO_DESCRIPTION = "Echo the text back.";
export const echoInput = { text: z.string() };

/** The tool's result in MCP's shape. */
export function echoResult({ text }: { text: string }) {
  return { content: [{ type: "text" as const, text }] };
}
