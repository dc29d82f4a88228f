import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { resolveModel } from "../../src/agent/model-config.ts";

/** The default model's vars plus `MODELS`, each test with a text of its own (parsed MODELS are cached by text). */
const withModels = (models: unknown): Env =>
  ({
    ...env,
    MODEL_BASE_URL: "https://models.example/v1",
    MODEL_API_KEY: "default-key",
    MODEL_NAME: "base",
    MODELS: JSON.stringify(models),
    ALT_KEY: "alt-key",
  }) as Env;

describe("resolveModel with MODELS", () => {
  it("resolves a named model with its own endpoint and key secret", () => {
    const models = { fast: { model: "fast-1", base_url: "https://fast.example/v1", api_key_secret: "ALT_KEY" } };
    expect(resolveModel(withModels(models), "fast", "k1")).toEqual({ name: "fast", model: "fast-1", baseUrl: "https://fast.example/v1", apiKey: "alt-key" });
  });

  it("refuses a key the named model does not list, and names the models it knows", () => {
    const e = withModels({ only: { model: "only-1", keys: ["k2"] } });
    expect(resolveModel(e, "only", "k1")).toEqual({ kind: "model_forbidden", name: "only" });
    expect(resolveModel(e, "other", "k2")).toEqual({ kind: "unknown_model", name: "other", known: ["default", "base", "only"] });
  });

  it("throws naming the field when MODELS does not match its schema", () => {
    expect(() => resolveModel(withModels({ bad: { model: "" } }), "bad", "k1")).toThrow(/^MODELS: bad\.model: /);
  });
});
