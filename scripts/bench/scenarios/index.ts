/**
 * The scenarios `npm run bench` runs, in order, against one bench Worker. To add one, write a
 * Scenario in this folder, add any tool or route it needs to scripts/bench/worker.ts, and list
 * it here.
 */
import type { Scenario } from "../scenario.ts";
import { adminOverview } from "./admin-overview.ts";
import { agentTurn } from "./agent-turn.ts";
import { auditCost } from "./audit-cost.ts";
import { availabilityCache } from "./availability-cache.ts";
import { batchParallelism } from "./batch-parallelism.ts";
import { batchThroughput } from "./batch-throughput.ts";
import { bundleSize } from "./bundle-size.ts";
import { callLatency } from "./call-latency.ts";
import { callThroughput } from "./call-throughput.ts";
import { definitionsInProcess } from "./definitions-in-process.ts";
import { executeCode } from "./execute-code.ts";
import { fullBreakdown } from "./full-breakdown.ts";
import { fullOverhead } from "./full-overhead.ts";
import { gatewayOverhead } from "./gateway-overhead.ts";
import { mcpForwardedQuestion } from "./mcp-forwarded-question.ts";
import { mcpOauth } from "./mcp-oauth.ts";
import { mcpPeers } from "./mcp-peers.ts";
import { openapiDocument } from "./openapi-document.ts";
import { openapiSources } from "./openapi-sources.ts";
import { ownToken } from "./own-token.ts";
import { runtimeCosts } from "./runtime-costs.ts";
import { scheduleFiring } from "./schedule-firing.ts";
import { startup } from "./startup.ts";
import { toolsListing } from "./tools-listing.ts";
import { webExtractPage } from "./web-extract-page.ts";
import { workspaceFiles } from "./workspace-files.ts";
import { worstInputs } from "./worst-inputs.ts";

export const SCENARIOS: readonly Scenario[] = [
  // First, before any scenario writes audit records: its window must hold the 100,000 records it
  // seeds, not those plus every earlier scenario's (220,000 made it take 92 s of the 4 minutes).
  adminOverview,
  callThroughput,
  gatewayOverhead,
  fullOverhead,
  callLatency,
  fullBreakdown,
  auditCost,
  mcpPeers,
  runtimeCosts,
  mcpOauth,
  mcpForwardedQuestion,
  batchThroughput,
  batchParallelism,
  toolsListing,
  openapiDocument,
  availabilityCache,
  definitionsInProcess,
  workspaceFiles,
  executeCode,
  agentTurn,
  scheduleFiring,
  webExtractPage,
  openapiSources,
  ownToken,
  bundleSize,
  startup,
  // Last: its inputs hold the isolate longest, and nothing measured after them should pay for it.
  worstInputs,
];
