/**
 * The wire shapes of `/v1/openapi-sources`: the configuration as sent (source-config.ts) and a
 * source's status as answered. Secrets appear only as their names.
 */
import { z } from "@hono/zod-openapi";
import type { SourceState } from "./runtime-sources.ts";
import { IDENTITY_HEADER_OF_ITS_OWN, openApiSourceConfigSchema, openApiSourceFieldsSchema, sourceToolset } from "./source-config.ts";
import type { SpecSummary } from "./source-store.ts";

export const OpenApiSourceBody = openApiSourceConfigSchema().openapi("OpenApiSourceConfig");
export const OpenApiSourcePutBody = openApiSourceFieldsSchema()
  .omit({ name: true })
  .refine(...IDENTITY_HEADER_OF_ITS_OWN)
  .openapi("OpenApiSourcePut");

const SpecSummarySchema = z.object({
  sha256: z.string().openapi({ description: "SHA-256 of the spec's text: the pin." }),
  fetched_at: z.string(),
  spec_version: z.string(),
  title: z.string(),
  base_url: z.string(),
  operations: z.number().int(),
  problems: z.array(z.string()).openapi({ description: "Operations skipped or simplified at conversion, and why." }),
});

export const OpenApiSourceStatusSchema = z
  .object({
    name: z.string(),
    toolset: z.string(),
    enabled: z.boolean(),
    config: openApiSourceConfigSchema(),
    pinned: SpecSummarySchema,
    pending: SpecSummarySchema.extend({
      changes: z.object({ added: z.array(z.string()), removed: z.array(z.string()), changed: z.array(z.string()) }),
    })
      .optional()
      .openapi({ description: "A changed spec found by a refresh: its tools are served only once accepted (`.../accept`)." }),
    tools: z.array(z.string()).openapi({ description: "The registry names of the tools served now." }),
    problems: z.array(z.string()).openapi({ description: "Operations left out at registration (a name another toolset holds)." }),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("OpenApiSourceStatus");

export type OpenApiSourceStatus = z.infer<typeof OpenApiSourceStatusSchema>;

export function toWireStatus(state: SourceState): OpenApiSourceStatus {
  const { record } = state;
  return {
    name: record.config.name,
    toolset: sourceToolset(record.config.name),
    enabled: record.config.enabled,
    config: record.config,
    pinned: wireSummary(record.pinned),
    ...(record.pending === undefined ? {} : { pending: { ...wireSummary(record.pending), changes: record.pending.changes } }),
    tools: [...state.tools.keys()].sort(),
    problems: state.problems,
    created_at: new Date(record.createdAt).toISOString(),
    updated_at: new Date(record.updatedAt).toISOString(),
  };
}

function wireSummary(summary: SpecSummary) {
  return {
    sha256: summary.sha256,
    fetched_at: new Date(summary.fetchedAt).toISOString(),
    spec_version: summary.specVersion,
    title: summary.title,
    base_url: summary.baseUrl,
    operations: summary.operationCount,
    problems: summary.problems,
  };
}
