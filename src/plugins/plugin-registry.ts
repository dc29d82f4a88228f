/**
 * Plugins: a deployer's pipeline hooks, one file each under plugins/, registered at top level
 * with `plugins.register({...})` and imported by src/plugins/plugins.gen.ts (the generator
 * checks names with file:line). A plugin bundles the three kinds of pipeline hook the pipeline
 * already runs (src/plugins/pipeline-hooks.ts): pre-call (block a call or replace its arguments; a hook
 * that throws blocks, because policy must fail closed), post-call (observe every outcome) and
 * transform (rewrite the result the model reads).
 *
 * @example
 * ```ts
 * plugins.register({
 *   name: "no-weekend-deletes",
 *   tools: ["delete_result"],
 *   preCall: () => (new Date().getUTCDay() % 6 === 0 ? { action: "block", message: "No deletions at weekends." } : undefined),
 * });
 * ```
 */
import { type Hooks, type PostCallHook, type PreCallHook, hooks as pipelineHooks, type TransformHook } from "./pipeline-hooks.ts";

// Same rule as scripts/gen-registry/plugins.ts, which checks it at build time.
export const PLUGIN_NAME_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/** What a plugin file passes to `plugins.register`. */
export interface PluginSpec {
  /** Unique, `^[a-z0-9][a-z0-9_-]{0,63}$`; named in logs and in the messages of blocked calls. */
  name: string;
  /** Only calls of these tools; combined with `toolsets`, a call matching either runs the hooks. */
  tools?: readonly string[];
  /** Only calls of tools registered in these toolsets (the tool's own toolset, not includes). */
  toolsets?: readonly string[];
  preCall?: PreCallHook;
  postCall?: PostCallHook;
  transform?: TransformHook;
  /**
   * Whether the plugin is on for this deployment (e.g. its setting is set); asked before each
   * call's events are built, so a plugin that is off costs a call nothing. On when absent.
   */
  active?: (env: Env) => boolean;
}

export type PluginRegisterOutcome = { ok: true } | { ok: false; reason: string };

/** The registered plugins, installing their hooks into one pipeline's `Hooks`. */
export class PluginRegistry {
  readonly #names = new Set<string>();
  readonly #hooks: Hooks;

  constructor(target: Hooks) {
    this.#hooks = target;
  }

  /**
   * Installs the plugin's hooks, in registration order (the generated import order, sorted by
   * file). A refusal is returned and logged rather than thrown, like the tool registry's.
   */
  register(spec: PluginSpec): PluginRegisterOutcome {
    const refuse = (reason: string): PluginRegisterOutcome => {
      console.error(`plugin registration refused: ${reason}`);
      return { ok: false, reason };
    };
    if (!PLUGIN_NAME_PATTERN.test(spec.name)) return refuse(`'${spec.name}' is not a valid plugin name: it must match ${PLUGIN_NAME_PATTERN.source}.`);
    if (this.#names.has(spec.name)) return refuse(`plugin '${spec.name}' is already registered; plugin names must be unique.`);
    if (spec.preCall === undefined && spec.postCall === undefined && spec.transform === undefined) {
      return refuse(`plugin '${spec.name}' has no preCall, postCall or transform hook.`);
    }
    this.#names.add(spec.name);
    const applies = appliesTo(spec);
    const { preCall, postCall, transform, active } = spec;
    if (preCall !== undefined) this.#hooks.onPreCall((event) => (applies(event) ? preCall(event) : undefined), active);
    if (postCall !== undefined) this.#hooks.onPostCall((event) => (applies(event) ? postCall(event) : undefined), active);
    if (transform !== undefined) this.#hooks.onTransform((event) => (applies(event) ? transform(event) : undefined), active);
    return { ok: true };
  }

  /** The registered plugin names, sorted. */
  names(): string[] {
    return [...this.#names].sort();
  }
}

function appliesTo({ tools, toolsets }: PluginSpec): (event: { tool: string; toolset: string }) => boolean {
  if (tools === undefined && toolsets === undefined) return () => true;
  // Built once per plugin, so the filter costs two set lookups per call.
  const toolSet = new Set(tools);
  const toolsetSet = new Set(toolsets);
  return (event) => toolSet.has(event.tool) || toolsetSet.has(event.toolset);
}

/** The plugins every call's pipeline runs. */
export const plugins = new PluginRegistry(pipelineHooks);
