/**
 * The build-time OpenAPI sources (apis/*.ts, converted by scripts/gen-registry/apis.ts into
 * apis.gen.ts) registered into the tool registry when the Worker starts, one toolset each.
 *
 * Start-up cost is what shapes this: each source's operations are one JSON string, parsed by
 * JSON.parse (much faster than the same data as JavaScript literals), and a tool's validator is
 * built at its first call (openapi-tool.ts), so registering 1,000 operations costs a parse and a
 * loop, not 1,000 schema compilations.
 */
import type { Registry } from "../registry/registry.ts";
import { openApiToolSpec } from "./openapi-tool.ts";
import type { OpenApiOperation } from "./operation.ts";
import type { OpenApiSourceConfig } from "./source-config.ts";
import type { UserOAuthEndpoints } from "./user-oauth.ts";

/** One source as the generator writes it. */
export interface BuildTimeSource {
  config: OpenApiSourceConfig;
  /** The base URL calls go to: the config's `base_url`, else the spec's first absolute server. */
  baseUrl: string;
  /** A `per_user` source's connection endpoints, the configuration's over the spec's (user-oauth.ts). */
  userOAuth?: UserOAuthEndpoints;
  /** SHA-256 of the committed spec's text, so a changed spec is visible in review and in /v1/tools. */
  specSha256: string;
  /** The operations, as JSON text of OpenApiOperation[]. */
  operations: string;
  /** What conversion left out or simplified, one line each. */
  problems: readonly string[];
}

/** Registers every operation of `sources`; returns the refusals (a name another toolset holds), which are also logged. */
export function registerBuildTimeSources(registry: Registry, sources: readonly BuildTimeSource[]): string[] {
  const refused: string[] = [];
  for (const source of sources) {
    const operations = JSON.parse(source.operations) as OpenApiOperation[];
    for (const operation of operations) {
      const outcome = registry.register(
        openApiToolSpec(source.config, operation, { baseUrl: source.baseUrl, ...(source.userOAuth === undefined ? {} : { userOAuth: source.userOAuth }) }),
      );
      if (!outcome.ok) refused.push(outcome.reason);
    }
  }
  return refused;
}

/** The tool names `sources` register, for suites that check every shipped tool (contract, hostile). */
export function buildTimeToolNames(sources: readonly BuildTimeSource[]): string[] {
  return sources.flatMap((source) => (JSON.parse(source.operations) as OpenApiOperation[]).map((operation) => operation.name));
}
