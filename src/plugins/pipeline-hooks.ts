/**
 * Hooks around every call (reference §3.3 steps 6, 12, 13): pre-call hooks may block a call or
 * replace its arguments, post-call hooks observe every outcome, transform hooks may rewrite a
 * result (the first string returned wins).
 *
 * One deliberate change from the original: a pre-call hook that throws blocks the call instead
 * of being skipped, because pre-call hooks are where policy lives and a policy that fails open
 * is no policy. Post-call and transform hooks are observers; their failures are logged and
 * ignored as in the original.
 */
import type { ErrorCode } from "../errors/tool-failure.ts";

export interface CallEvent {
  tool: string;
  toolset: string;
  callId: string;
  sessionId: string;
  args: Record<string, unknown>;
  /** The Worker's bindings and vars, so a deployer's plugin can read its settings per call. */
  env: Env;
}

export type PreCallDirective = { action: "block"; message: string } | { action: "replace"; args: Record<string, unknown> } | undefined | void;

export interface PostCallEvent extends CallEvent {
  /** The result string the model will read (before transform hooks for transform hooks). */
  result: string;
  /** `pending_approval`: the call waits for a person's decision and has not run. */
  status: "ok" | "error" | "pending_approval";
  errorCode?: ErrorCode;
  durationMs: number;
}

export type PreCallHook = (event: CallEvent) => PreCallDirective | Promise<PreCallDirective>;
export type PostCallHook = (event: PostCallEvent) => void | Promise<void>;
export type TransformHook = (event: PostCallEvent) => string | undefined | void | Promise<string | undefined | void>;

export type PreCallOutcome = { blocked: false; args: Record<string, unknown>; replaced: boolean } | { blocked: true; message: string };

/**
 * Whether a hook is on for this deployment (a plugin whose setting is unset is off). Asked
 * before the pipeline builds an event, so a deployment whose plugins are all off pays no event,
 * no promise and no await per call for them.
 */
export type HookGate = (env: Env) => boolean;

interface Gated<H> {
  hook: H;
  active: HookGate | undefined;
}

export class Hooks {
  readonly #pre: Gated<PreCallHook>[] = [];
  readonly #post: Gated<PostCallHook>[] = [];
  readonly #transform: Gated<TransformHook>[] = [];

  /** Adds a pre-call hook, on where `active` says so (always without it); returns a function that removes it. */
  onPreCall(hook: PreCallHook, active?: HookGate): () => void {
    return add(this.#pre, { hook, active });
  }

  onPostCall(hook: PostCallHook, active?: HookGate): () => void {
    return add(this.#post, { hook, active });
  }

  onTransform(hook: TransformHook, active?: HookGate): () => void {
    return add(this.#transform, { hook, active });
  }

  /** Runs the active pre-call hooks in order; the first block wins, replacements chain. */
  async runPreCall(event: CallEvent): Promise<PreCallOutcome> {
    let args = event.args;
    let replaced = false;
    for (const { hook, active } of this.#pre) {
      if (!isOn(active, event.env)) continue;
      let directive: PreCallDirective;
      try {
        directive = await hook({ ...event, args });
      } catch (error) {
        return {
          blocked: true,
          message: `Call to '${event.tool}' blocked: a pre-call hook failed (${error instanceof Error ? error.message : String(error)}).`,
        };
      }
      if (directive?.action === "block" && typeof directive.message === "string" && directive.message !== "") {
        return { blocked: true, message: directive.message };
      }
      if (directive?.action === "replace" && typeof directive.args === "object" && directive.args !== null) {
        args = structuredClone(directive.args);
        replaced = true;
      }
    }
    return { blocked: false, args, replaced };
  }

  /** Notifies every active post-call hook; failures are logged and never reach the caller. */
  async runPostCall(event: PostCallEvent): Promise<void> {
    for (const { hook, active } of this.#post) {
      if (!isOn(active, event.env)) continue;
      try {
        await hook(event);
      } catch (error) {
        console.warn(`post-call hook failed for '${event.tool}': ${String(error)}`);
      }
    }
  }

  /** Returns the first string an active transform hook gives, or the result unchanged. */
  async runTransform(event: PostCallEvent): Promise<string> {
    for (const { hook, active } of this.#transform) {
      if (!isOn(active, event.env)) continue;
      try {
        const out = await hook(event);
        if (typeof out === "string") return out;
      } catch (error) {
        console.warn(`transform hook failed for '${event.tool}': ${String(error)}`);
      }
    }
    return event.result;
  }

  /** Whether any pre-call hook is on for this env. */
  hasPreCall(env: Env): boolean {
    return anyActive(this.#pre, env);
  }

  hasPostCall(env: Env): boolean {
    return anyActive(this.#post, env);
  }

  hasTransform(env: Env): boolean {
    return anyActive(this.#transform, env);
  }
}

function anyActive<H>(list: readonly Gated<H>[], env: Env): boolean {
  for (const { active } of list) if (isOn(active, env)) return true;
  return false;
}

/** A gate that throws (a setting that does not parse) counts as on, so its hook runs and fails closed. */
function isOn(active: HookGate | undefined, env: Env): boolean {
  if (active === undefined) return true;
  try {
    return active(env);
  } catch {
    return true;
  }
}

function add<T>(list: T[], item: T): () => void {
  list.push(item);
  return () => {
    const at = list.indexOf(item);
    if (at >= 0) list.splice(at, 1);
  };
}

/** The pipeline's hooks as the composition root hands them to a request's scope. */
export type PipelineHooks = Hooks;

/** The hooks every call runs through. */
export const hooks = new Hooks();
