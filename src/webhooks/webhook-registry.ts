/**
 * The webhook registry: one module-level `webhookRegistry` that every file under webhooks/ registers
 * into when src/webhooks/webhooks.gen.ts imports it (discovery is codegen, as for tools).
 *
 * A webhook says who may call it (a signature scheme and the env var holding its secret), what its
 * calls may use (toolsets; none unless listed, so a forgotten list fails closed), and what a
 * verified payload becomes: fixed tool calls (`map`) or an agent run (`run`), exactly one of the
 * two. Unlike tools, a second registration of a name is always
 * refused: two webhooks behind one URL would make which one verifies a delivery an accident of
 * import order.
 */
import { z } from "zod";

/** How a sender signs its deliveries (src/webhooks/verify-signature.ts implements each). */
export const VERIFY_SCHEMES = ["github", "stripe", "slack", "hmac"] as const;
export type VerifyScheme = (typeof VERIFY_SCHEMES)[number];

/** Webhook names are URL path segments: `POST /v1/hooks/<name>`. */
export const WEBHOOK_NAME_PATTERN = /^[a-z0-9][a-z0-9_-]{0,63}$/;
/** Path segments under /v1/hooks/ that are routes, not webhooks. */
export const RESERVED_NAMES: ReadonlySet<string> = new Set(["deliveries", "events"]);
/** Secrets are Worker secrets, so their names follow the env var convention. */
export const SECRET_ENV_PATTERN = /^[A-Z][A-Z0-9_]{0,127}$/;

/** One tool call a webhook asks for; `id` defaults to `call_<index>`. */
export interface WebhookCall {
  id?: string;
  name: string;
  arguments: unknown;
}

/** What a webhook's functions get: the payload (parsed by its schema), the request headers and the Worker's env (its settings). */
export interface WebhookInput<P> {
  payload: P;
  headers: Headers;
  env: Env;
}

/**
 * A call made with a run's final answer (a comment posted back): its target is decided from the
 * verified payload when the delivery is accepted, and the answer fills `answerArgument` when the
 * run completes. Kept as data rather than a function of the answer, because the payload is not
 * stored: the delivery keeps only what its run and its reply need.
 */
export interface WebhookReplyCall {
  name: string;
  /** The call's other arguments. */
  arguments: Record<string, unknown>;
  /** The argument the answer goes into, e.g. `body` for a comment. */
  answerArgument: string;
}

/**
 * A webhook that starts an agent run (src/agent/) instead of fixed calls. The run is the same as
 * `POST /v1/runs` makes (its limits, its Run object), as principal `hook:<name>` with the
 * webhook's toolsets, session id = delivery id.
 */
export interface WebhookRunSpec<P> {
  /**
   * The run's first user message, from the verified, parsed payload; undefined starts nothing
   * (the delivery is done at once: a loop guard, an event of no interest). A function rather
   * than a `{{path}}` template: the payload's schema types it, so a misspelt field fails tsc
   * instead of filling in an empty string, and payload text can only ever be inserted as text.
   * Quote payload text with `payloadText`, which caps it; the whole prompt is capped too.
   */
  prompt: (input: WebhookInput<P>) => string | undefined;
  /** The run's system message. */
  system?: string;
  /** A model name (`default`, or one of MODELS); the default model when absent. */
  model?: string;
  /** Model turns; RUN_MAX_TURNS when absent, and never more. */
  maxTurns?: number;
  /**
   * The toolsets the run's model may use, each one of the webhook's `toolsets`; all of them when
   * absent. The reply call may use any of the webhook's, so a run can be kept from posting itself.
   */
  toolsets?: readonly string[];
  /**
   * A tool call to make with the answer once the run completes, through the same pipeline,
   * policy, approvals and audit as every call of the webhook. The signed callback (`callbackUrl`)
   * gets the run's id, status and answer whether or not there is one.
   */
  reply?: (input: WebhookInput<P>) => WebhookReplyCall | undefined;
}

/** The longest prompt a run webhook may start a run with; longer ones are cut, saying so. */
export const RUN_PROMPT_MAX_CHARS = 16_000;

/**
 * Payload text for a prompt: a string as it is, anything else as JSON, cut at `maxChars` with a
 * note of how much was left out. Text is only ever quoted, never evaluated or expanded.
 */
export function payloadText(value: unknown, maxChars = 4_000): string {
  const text = typeof value === "string" ? value : (JSON.stringify(value) ?? "");
  return text.length <= maxChars ? text : `${text.slice(0, maxChars)} [... ${text.length - maxChars} more characters cut]`;
}

export interface WebhookSpec<S extends z.ZodType = z.ZodType> {
  /** The URL segment: deliveries go to `POST /v1/hooks/<name>`. */
  name: string;
  description: string;
  verify: VerifyScheme;
  /** The Worker secret holding the shared secret (`wrangler secret put <NAME>`); unset refuses every delivery. */
  secretEnv: string;
  /** Toolsets the webhook's calls may use; absent or empty means none (every call PERMISSION_DENIED). */
  toolsets?: readonly string[];
  /**
   * The payload's shape; a payload it refuses is answered 400 and nothing runs. Given as a
   * function, it is built at the hook's first delivery rather than when its file is imported,
   * which every cold isolate's start-up does (issue 33).
   */
  payload?: S | (() => S);
  /**
   * For a verified payload that is the sender checking the URL rather than an event (Slack's
   * `url_verification`): what to answer, with 200 as JSON, instead of accepting a delivery.
   * Undefined for an ordinary delivery. Throwing refuses the delivery (400).
   */
  handshake?: (input: WebhookInput<z.output<S>>) => unknown;
  /** Turns a verified payload into zero or more tool calls. Throwing refuses the delivery (400). Exclusive with `run`. */
  map?: (input: WebhookInput<z.output<S>>) => readonly WebhookCall[];
  /** Starts an agent run from a verified payload instead of fixed calls. Exclusive with `map`. */
  run?: WebhookRunSpec<z.output<S>>;
  /**
   * The sender's id for this delivery, when the payload carries a better one than the scheme's
   * (a Stripe event id survives Stripe's re-signed retries; the signature does not).
   */
  deliveryId?: (input: WebhookInput<z.output<S>>) => string | undefined;
  /** Where to POST the results once they are known, signed with the webhook's secret. */
  callbackUrl?: string | ((env: Env) => string | undefined);
  /** Calls per minute for the webhook's principal; RATE_LIMIT_PER_MINUTE when absent. */
  rateLimitPerMinute?: number;
}

/** A registered hook: the spec with its schema and toolsets filled in. */
export interface WebhookEntry extends Omit<WebhookSpec, "toolsets" | "payload"> {
  toolsets: readonly string[];
  payload: z.ZodType;
}

export type WebhookRegisterOutcome = { ok: true } | { ok: false; reason: string };

/** Type-checks a spec's functions against its schema and erases the schema type. */
export function defineWebhook<S extends z.ZodType>(spec: WebhookSpec<S>): WebhookSpec {
  return spec as WebhookSpec;
}

export class WebhookRegistry {
  readonly #hooks = new Map<string, WebhookEntry>();

  /**
   * Adds a webhook; a bad name, secret name or a name already taken is refused (returned and logged).
   *
   * @example
   * ```ts
   * webhookRegistry.register({ name: "deploys", description: "...", verify: "hmac", secretEnv: "HOOK_DEPLOYS_SECRET", map: () => [] });
   * ```
   */
  register<S extends z.ZodType>(spec: WebhookSpec<S>): WebhookRegisterOutcome {
    const refuse = (reason: string): WebhookRegisterOutcome => {
      console.error(`hook registration refused: ${reason}`);
      return { ok: false, reason };
    };
    if (!WEBHOOK_NAME_PATTERN.test(spec.name)) return refuse(`'${spec.name}' is not a valid hook name: it must match ${WEBHOOK_NAME_PATTERN.source}.`);
    if (!SECRET_ENV_PATTERN.test(spec.secretEnv))
      return refuse(`hook '${spec.name}': secretEnv '${spec.secretEnv}' must be an env var name such as HOOK_GITHUB_SECRET.`);
    if (!(VERIFY_SCHEMES as readonly string[]).includes(spec.verify)) return refuse(`hook '${spec.name}': verify must be one of ${VERIFY_SCHEMES.join(", ")}.`);
    if (RESERVED_NAMES.has(spec.name)) return refuse(`'${spec.name}' is reserved: /v1/hooks/${spec.name} is a route of its own.`);
    if (this.#hooks.has(spec.name)) return refuse(`hook '${spec.name}' is already registered; hook names must be unique.`);
    if ((spec.map === undefined) === (spec.run === undefined)) {
      return refuse(
        `hook '${spec.name}' must declare exactly one of map (fixed tool calls) and run (an agent run); it declares ${spec.map === undefined ? "neither" : "both"}.`,
      );
    }
    const outside = (spec.run?.toolsets ?? []).filter((t) => !(spec.toolsets ?? []).includes(t));
    if (outside.length > 0)
      return refuse(
        `hook '${spec.name}': run.toolsets must be among the hook's toolsets (${(spec.toolsets ?? []).join(", ") || "none"}); ${outside.join(", ")} is not.`,
      );
    const maxTurns = spec.run?.maxTurns;
    if (maxTurns !== undefined && (!Number.isInteger(maxTurns) || maxTurns < 1))
      return refuse(`hook '${spec.name}': run.maxTurns must be a whole number of at least 1, got ${maxTurns}.`);
    const erased = defineWebhook(spec);
    const given = erased.payload;
    let payload: z.ZodType | undefined;
    this.#hooks.set(spec.name, {
      ...erased,
      toolsets: [...(erased.toolsets ?? [])],
      get payload(): z.ZodType {
        // zod schemas are objects, never callable: a function is the hook's schema builder.
        payload ??= given === undefined ? z.unknown() : typeof given === "function" ? given() : given;
        return payload;
      },
    });
    return { ok: true };
  }

  get(name: string): WebhookEntry | undefined {
    return this.#hooks.get(name);
  }

  /** Registered webhook names, sorted. */
  names(): string[] {
    return [...this.#hooks.keys()].sort();
  }
}

export const webhookRegistry = new WebhookRegistry();
