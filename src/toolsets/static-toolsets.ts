/**
 * Built-in toolsets. A tool's own `toolset` is a toolset even without an entry here; an entry
 * adds a description and includes. scripts/gen-registry.ts reads this object literal and fails
 * the build on an unknown include, a tool no file registers, or an include cycle.
 */
import type { StaticToolset } from "./types.ts";

export const STATIC_TOOLSETS = {
  core: {
    description: "Small local tools that need no network: echo, clock, text utilities.",
    tools: [],
    includes: [],
  },
  web: {
    description: "Reading the web: search (web_search), pages as Markdown (web_extract, web_fetch), GitHub repositories.",
    tools: [],
    includes: [],
  },
  http: {
    description: "Raw HTTP requests to public APIs (http_request); every method but GET waits for a person's approval.",
    tools: [],
    includes: [],
  },
  results: {
    description: "Paging through tool results too large to return inline.",
    tools: [],
    includes: [],
  },
  discovery: {
    description: "Finding tools that were not listed (GET /v1/tools?defer=true leaves them to tool_search).",
    tools: [],
    includes: [],
  },
  delegation: {
    description: "Handing a sub-task to a child agent run (delegate_task); only inside an agent run, and only when a model is configured.",
    tools: [],
    includes: [],
  },
  files: {
    description: "A file workspace in R2, one per key (or per session): read, write, patch, search and list files.",
    tools: [],
    includes: [],
  },
  maintenance: {
    description: "Housekeeping tools that change or delete stored data; each call needs a person's approval.",
    tools: [],
    includes: [],
  },
  memory: {
    description: "Durable notes per API key that outlive sessions: the agent's own (memory) and about the user (user), under character budgets.",
    tools: [],
    includes: [],
  },
  todo: {
    description: "A task list per session, to plan multi-step work and track progress.",
    tools: [],
    includes: [],
  },
  vision: {
    description: "Asking the configured model about an image from a URL or the workspace (vision_analyze); only when MODEL_VISION says the model takes images.",
    tools: [],
    includes: [],
  },
  clarify: {
    description: "Asking the person (clarify): inside an agent run the run waits for the answer; over MCP the client is asked with elicitation.",
    tools: [],
    includes: [],
  },
  session_search: {
    description: "Full-text search over the calling key's past agent runs (session_search), within the run retention period.",
    tools: [],
    includes: [],
  },
  research: {
    description: "Everything a research agent needs: web access, local utilities and result paging.",
    tools: [],
    includes: ["web", "core", "results"],
  },
} satisfies Record<string, StaticToolset>;
