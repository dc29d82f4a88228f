/**
 * Which model an agent run talks to. Any OpenAI-compatible `/v1` endpoint works (OpenAI,
 * OpenRouter, Groq, vLLM, llama.cpp's server, Ollama, LM Studio, Workers AI's OpenAI-compatible
 * endpoint): `MODEL_BASE_URL`, the secret `MODEL_API_KEY` (any non-empty value for a local
 * server) and `MODEL_NAME`, the default model. `MODELS` optionally names more, each with the keys
 * that may use it:
 *
 * @example
 * MODELS = '{"fast": {"model": "llama-3.1-8b-instant", "keys": ["<key id>"]}, "big": {"model": "gpt-5", "base_url": "https://api.openai.com/v1", "api_key_secret": "OPENAI_API_KEY"}}'
 */
import { z } from "zod";

/** The variables a run needs; the 503 without a model names them. */
export const MODEL_VARIABLES = ["MODEL_BASE_URL", "MODEL_API_KEY", "MODEL_NAME"] as const;

/** The name a request uses for the default model (besides MODEL_NAME itself). */
export const DEFAULT_MODEL = "default";

const namedModelSchema = () =>
  z.strictObject({
    model: z.string().min(1),
    base_url: z.url().optional(),
    /** The name of the secret holding this endpoint's key; MODEL_API_KEY when absent. */
    api_key_secret: z
      .string()
      .regex(/^[A-Z][A-Z0-9_]*$/)
      .optional(),
    /** Key ids that may use it; every key when absent. */
    keys: z.array(z.string().min(1)).optional(),
  });

// Lazy: the MODELS var is parsed by the first agent run or vision call, not at start-up.
const ModelsSchema = z.lazy(() => z.record(z.string().regex(/^[A-Za-z0-9._:-]{1,64}$/), namedModelSchema()));

/** Everything needed to call one model. */
export interface ModelTarget {
  /** The name the run was asked for (`default`, a MODELS name). */
  name: string;
  /** The upstream's model id, sent as `model`. */
  model: string;
  baseUrl: string;
  apiKey: string;
}

/** Why no model could be chosen. */
export type ModelRefusal =
  | { kind: "model_not_configured"; missing: readonly string[] }
  | { kind: "unknown_model"; name: string; known: readonly string[] }
  | { kind: "model_forbidden"; name: string };

const text = (env: Env, name: string): string | undefined => {
  const value: unknown = Reflect.get(env, name);
  return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
};

/** The variables among MODEL_VARIABLES that are unset or blank. */
export function missingModelVariables(env: Env): string[] {
  return MODEL_VARIABLES.filter((name) => text(env, name) === undefined);
}

/** Whether a default model is configured (runs, chat completions and delegate_task need one). */
export function modelConfigured(env: Env): boolean {
  return missingModelVariables(env).length === 0;
}

const parsedModels = new Map<string, z.infer<typeof ModelsSchema>>();

function namedModels(env: Env): z.infer<typeof ModelsSchema> {
  const raw = text(env, "MODELS");
  if (raw === undefined) return {};
  let found = parsedModels.get(raw);
  if (found === undefined) {
    const parsed = ModelsSchema.safeParse(JSON.parse(raw));
    if (!parsed.success) throw new Error(`MODELS: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
    found = parsed.data;
    parsedModels.set(raw, found);
  }
  return found;
}

/** The model `requested` (the default when absent) as `keyId` may use it, or why not. */
export function resolveModel(env: Env, requested: string | undefined, keyId: string): ModelTarget | ModelRefusal {
  const missing = missingModelVariables(env);
  if (missing.length > 0) return { kind: "model_not_configured", missing };
  const baseUrl = text(env, "MODEL_BASE_URL") ?? "";
  const apiKey = text(env, "MODEL_API_KEY") ?? "";
  const defaultModel = text(env, "MODEL_NAME") ?? "";
  if (requested === undefined || requested === DEFAULT_MODEL || requested === defaultModel)
    return { name: DEFAULT_MODEL, model: defaultModel, baseUrl, apiKey };
  const models = namedModels(env);
  const named = models[requested];
  if (named === undefined) return { kind: "unknown_model", name: requested, known: [DEFAULT_MODEL, defaultModel, ...Object.keys(models)] };
  if (named.keys !== undefined && !named.keys.includes(keyId)) return { kind: "model_forbidden", name: requested };
  const key = named.api_key_secret === undefined ? apiKey : text(env, named.api_key_secret);
  if (key === undefined) return { kind: "model_not_configured", missing: [named.api_key_secret ?? "MODEL_API_KEY"] };
  return { name: requested, model: named.model, baseUrl: named.base_url ?? baseUrl, apiKey: key };
}
