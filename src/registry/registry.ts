/**
 * The tool registry: one module-level instance that every tool file registers into when it is
 * imported (src/registry/tools.gen.ts imports them all, in sorted order).
 *
 * Registration rules follow Hermes (reference §2.2): a new name is inserted, the same name in
 * the same toolset replaces, a different toolset is rejected unless both are MCP toolsets or
 * the spec says `override: true`. Unlike the original, a refusal is returned to the caller as
 * well as logged, and names are checked against what the model providers accept.
 */
import type { z } from "zod";
import { MIN_RESULT_LIMIT_CHARS } from "../results/limit-result.ts";
import { deferredEntry, deriveParameters, descriptionOf, schemaAtFirstUse } from "./deferred-entry.ts";
import type { ToolEntry, ToolSpec } from "./types.ts";

/** The tool-name rule that OpenAI and Anthropic both accept. */
export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;

/** Results longer than this many characters are previewed and stored (reference §3.5). */
export const DEFAULT_MAX_RESULT_SIZE_CHARS = 100_000;

export type RegisterOutcome = { ok: true; action: "inserted" | "replaced" } | { ok: false; reason: string };

const isMcpToolset = (toolset: string): boolean => toolset.startsWith("mcp-");

/**
 * Type-checks a spec's handler against its schema and erases the schema type, for code that
 * keeps specs in a list before registering them (tests, table-driven or remote tools).
 */
export function defineTool<S extends z.ZodType>(spec: ToolSpec<S>): ToolSpec {
  return spec as ToolSpec;
}

/**
 * What is wrong with a tool's own retry policy, if anything. Checked here because the policy is
 * spread over the configured one at every call: a factor of 0 or NaN would retry without waiting.
 */
function retryProblem(retry: ToolSpec["retry"]): string | undefined {
  if (retry === undefined) return undefined;
  const { maxAttempts, backoffBaseMs, backoffFactor } = retry;
  if (maxAttempts !== undefined && !(Number.isInteger(maxAttempts) && maxAttempts >= 1))
    return `retry.maxAttempts ${String(maxAttempts)}: it must be an integer of at least 1`;
  if (backoffBaseMs !== undefined && !(Number.isFinite(backoffBaseMs) && backoffBaseMs >= 0))
    return `retry.backoffBaseMs ${String(backoffBaseMs)}: it must be a finite number of at least 0`;
  if (backoffFactor !== undefined && !(Number.isFinite(backoffFactor) && backoffFactor >= 1))
    return `retry.backoffFactor ${String(backoffFactor)}: it must be a finite number of at least 1`;
  return undefined;
}

export class Registry {
  readonly #tools = new Map<string, ToolEntry>();
  #deferSchemas = false;
  #generation = 0;
  #sortedNames: string[] | undefined;
  /**
   * Names per toolset and the sorted toolset names, built once per generation: toolset
   * resolution asks for them on every key's access and every run's turn, and a filter over every
   * registered tool each time cost ~0.9 ms per agent run with the bench's 500 synthetic tools.
   */
  #byToolset: Map<string, string[]> | undefined;
  #toolsets: string[] | undefined;

  /** Bumped on every successful mutation, so derived views can cache per generation. */
  get generation(): number {
    return this.#generation;
  }

  /**
   * While on, a tool given only a zod schema gets its JSON Schema at first use instead of now, so
   * its refusal for a schema JSON Schema cannot express is an error at that use. Only the Worker
   * entry turns it on, around the build-time tools' imports: start-up is paid by every cold
   * isolate (issue 33), and test/tools/contract.test.ts derives every such tool's schema in CI.
   */
  deferSchemas(on: boolean): void {
    this.#deferSchemas = on;
  }

  /** Registers a tool; returns whether it was inserted, replaced, or refused and why. */
  register<S extends z.ZodType>(spec: ToolSpec<S>): RegisterOutcome {
    const refuse = (reason: string): RegisterOutcome => {
      console.error(`Tool registration REJECTED: ${reason}`);
      return { ok: false, reason };
    };
    if (!TOOL_NAME_PATTERN.test(spec.name)) {
      return refuse(`'${spec.name}' is not a valid tool name: names must match ^[a-zA-Z0-9_-]{1,64}$ (letters, digits, '_' and '-', at most 64 characters).`);
    }
    const existing = this.#tools.get(spec.name);
    if (existing !== undefined && existing.toolset !== spec.toolset) {
      const bothMcp = isMcpToolset(existing.toolset) && isMcpToolset(spec.toolset);
      if (!bothMcp && spec.override !== true) {
        return refuse(
          `'${spec.name}' (toolset '${spec.toolset}') would shadow the tool of the same name in toolset '${existing.toolset}'; pass override: true to replace it on purpose.`,
        );
      }
    }
    // Refused rather than met by a shorter notice: the notice (the characters left out, the
    // handle to read them) is what makes a cut result recoverable rather than silently cut.
    const limit = spec.maxResultSizeChars;
    if (limit !== undefined && !(limit >= MIN_RESULT_LIMIT_CHARS)) {
      return refuse(
        `'${spec.name}' has maxResultSizeChars ${String(limit)}: a result over it is cut to a notice of up to ${MIN_RESULT_LIMIT_CHARS} characters (the size, and the handle to read the rest) plus what fits of the result, so the limit must be at least ${MIN_RESULT_LIMIT_CHARS}; give a few hundred more to show part of the result, or leave it out for the default ${DEFAULT_MAX_RESULT_SIZE_CHARS}.`,
      );
    }
    const badRetry = retryProblem(spec.retry);
    if (badRetry !== undefined) return refuse(`'${spec.name}' has ${badRetry}.`);
    const { schema } = spec;
    const entry = {
      ...defineTool(spec),
      requiresEnv: spec.requiresEnv ?? [],
      emoji: spec.emoji ?? "",
      maxResultSizeChars: spec.maxResultSizeChars ?? DEFAULT_MAX_RESULT_SIZE_CHARS,
    } as ToolEntry;
    // zod schemas are objects, never callable: a function is the tool's schema builder.
    if (typeof schema === "function") schemaAtFirstUse(entry, schema);
    if (spec.parameters === undefined && this.#deferSchemas) {
      deferredEntry(entry, spec.description);
    } else {
      const parameters = spec.parameters ?? deriveParameters(spec.name, entry.schema);
      if (typeof parameters === "string") return refuse(parameters);
      entry.parameters = parameters;
      entry.description = descriptionOf(spec.description, entry, parameters);
    }
    this.#tools.set(spec.name, entry);
    this.#changed();
    return { ok: true, action: existing === undefined ? "inserted" : "replaced" };
  }

  /** Removes a tool; an unknown name is a no-op (remote MCP tools come and go at run time). */
  deregister(name: string): void {
    if (this.#tools.delete(name)) this.#changed();
  }

  get(name: string): ToolEntry | undefined {
    return this.#tools.get(name);
  }

  has(name: string): boolean {
    return this.#tools.has(name);
  }

  /** Every registered name, sorted (code-unit order, stable across runs). */
  names(): readonly string[] {
    this.#sortedNames ??= [...this.#tools.keys()].sort();
    return this.#sortedNames;
  }

  /** Names of the tools registered in one toolset, sorted. */
  namesInToolset(toolset: string): string[] {
    if (this.#byToolset === undefined) {
      const byToolset = new Map<string, string[]>();
      for (const name of this.names()) {
        const set = this.#tools.get(name)?.toolset;
        if (set === undefined) continue;
        const names = byToolset.get(set);
        if (names === undefined) byToolset.set(set, [name]);
        else names.push(name);
      }
      this.#byToolset = byToolset;
    }
    // A copy: callers own what they are given, and the cached list must outlive them.
    return [...(this.#byToolset.get(toolset) ?? [])];
  }

  /** Every toolset some tool is registered in, sorted. */
  toolsets(): string[] {
    this.#toolsets ??= [...new Set([...this.#tools.values()].map((entry) => entry.toolset))].sort();
    return [...this.#toolsets];
  }

  #changed(): void {
    this.#generation += 1;
    this.#sortedNames = undefined;
    this.#byToolset = undefined;
    this.#toolsets = undefined;
  }
}

/** The registry every tool file registers into. */
export const registry = new Registry();
