/**
 * A runtime source's spec, fetched, converted and judged: what `POST /v1/openapi-sources` and a
 * refresh store. Every refusal is a sentence an admin can act on; nothing here throws for bad input.
 */
import { loadConfig } from "../config/config.ts";
import { checkOutboundUrl } from "../net/outbound-url.ts";
import { fetchSpec } from "./fetch-spec.ts";
import type { ConvertedSpec } from "./operation.ts";
import type { OpenApiSourceConfig } from "./source-config.ts";
import type { SpecSummary } from "./source-store.ts";
import { resolveUserOAuth, specCodeFlow } from "./user-oauth.ts";

export type ImportedSpec = { ok: true; summary: SpecSummary; converted: ConvertedSpec } | { ok: false; stage: "fetch" | "spec" | "base_url"; reason: string };

export async function importSpec(env: Env, config: OpenApiSourceConfig, now: number): Promise<ImportedSpec> {
  if (!("url" in config.spec)) {
    return { ok: false, stage: "spec", reason: "a runtime source takes its spec from `spec.url`; `spec.file` is for apis/ files at build time" };
  }
  const specUrl = config.spec.url;
  const allowed = checkOutboundUrl(specUrl, loadConfig(env).outboundAllow);
  if (!allowed.ok) return { ok: false, stage: "spec", reason: `the spec URL is refused: ${allowed.reason}` };
  const fetched = await fetchSpec(env, specUrl);
  if (!fetched.ok) return { ok: false, stage: "fetch", reason: fetched.reason };
  // Imported here, not at the top: the YAML parser, the ref parser and the upgrader they bring
  // are for adding or refreshing a source, and loaded at start-up they cost every cold isolate.
  const [{ loadSpec }, { convertSpec }] = await Promise.all([import("./load-spec.ts"), import("./convert-spec.ts")]);
  const loaded = await loadSpec(fetched.text);
  if (!loaded.ok) return { ok: false, stage: "spec", reason: loaded.reason };
  const converted = await convertSpec(loaded.doc, {
    source: config.name,
    ...(config.include === undefined ? {} : { include: config.include }),
    exclude: config.exclude,
  });
  if (!converted.ok) return { ok: false, stage: "spec", reason: converted.reason };
  const baseUrl = chooseBaseUrl(config.base_url, converted.spec.servers, specUrl);
  if (baseUrl === undefined) {
    return { ok: false, stage: "base_url", reason: "the spec names no absolute server URL; give `base_url`" };
  }
  const checked = checkOutboundUrl(baseUrl, loadConfig(env).outboundAllow);
  if (!checked.ok) return { ok: false, stage: "base_url", reason: `calls would go to ${baseUrl}, which is refused: ${checked.reason}` };
  const { spec } = converted;
  const userOAuth = config.auth.type === "per_user" ? resolveUserOAuth(config.auth, specCodeFlow(loaded.doc), checked.url.href.replace(/\/$/, "")) : undefined;
  if (userOAuth?.ok === false) return { ok: false, stage: "spec", reason: userOAuth.reason };
  return {
    ok: true,
    converted: spec,
    summary: {
      sha256: fetched.sha256,
      fetchedAt: now,
      specVersion: spec.specVersion,
      title: spec.title,
      baseUrl: checked.url.href.replace(/\/$/, ""),
      operationCount: spec.operations.length,
      problems: spec.problems,
      ...(userOAuth === undefined ? {} : { userOAuth: userOAuth.endpoints }),
    },
  };
}

/** The configured base URL, else the spec's first server, resolved against where the spec was fetched (OpenAPI 3 §4.8.5). */
function chooseBaseUrl(configured: string | undefined, servers: readonly string[], specUrl: string): string | undefined {
  if (configured !== undefined) return configured;
  const first = servers[0];
  if (first === undefined) return undefined;
  try {
    return new URL(first, specUrl).href;
  } catch {
    return undefined;
  }
}
