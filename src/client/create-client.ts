/**
 * The typed client of the gateway's HTTP API, for Node, Workers and browsers alike: it only
 * needs `fetch`. Every route is typed from the generated wire types (openapi.gen.ts) through
 * openapi-fetch as `client.api`; the methods beside it wrap what an agent does most: list tools,
 * run the model's tool calls, wait for a person's approval, start and follow agent runs.
 */
import createFetchClient, { type Client } from "openapi-fetch";
import { type FollowOptions, followEvents, type RunEvent } from "./follow-run.ts";
import type { components, paths } from "./openapi.gen.ts";
import { ToolgateRequestError } from "./request-error.ts";

type Schemas = components["schemas"];

/** The query of `GET /v1/tools`: `format` (the provider shape), `toolset`, `defer`. */
export type ListToolsQuery = NonNullable<paths["/v1/tools"]["get"]["parameters"]["query"]>;
/** Every provider shape the gateway lists tools in. */
export type ToolFormat = NonNullable<ListToolsQuery["format"]>;
export type ToolList = Schemas["ToolList"];
export type ToolCallsRequest = Schemas["ToolCallsRequest"];
export type ToolCallsResponse = Schemas["ToolCallsResponse"];
export type Approval = Schemas["Approval"];
/** An approval that has settled: approved and run, denied or expired, with the message for the model. */
export type SettledApproval = Approval & Required<Pick<Approval, "result" | "message">>;
export type RunRequest = Schemas["RunRequest"];
export type Run = Schemas["Run"];

export interface ClientOptions {
  /** The gateway's origin, e.g. `http://localhost:8787`. */
  baseUrl: string;
  /** An API key (`tg_...`), or the admin token. */
  key: string;
  /** Sends each request; the global `fetch` by default. A Worker may pass a service binding's. */
  fetch?: (request: Request) => Promise<Response>;
}

export interface WaitOptions {
  /** The session the call was made in; addresses its approvals directly (docs/approvals.md). */
  sessionId?: string;
  /** Stops waiting between polls; the poll under way ends with it too. */
  signal?: AbortSignal;
}

export interface ToolgateClient {
  /** Every route of the API, typed: `api.GET("/v1/audit", { params: { query: { limit: 5 } } })`. */
  api: Client<paths>;
  /** Tool definitions in the provider shape `query.format` names (OpenAI's by default). */
  listTools(query?: ListToolsQuery): Promise<ToolList>;
  /** Runs the model's tool calls as one batch; one result per call, in order, each with its message. */
  callTools(request: ToolCallsRequest): Promise<ToolCallsResponse>;
  /** Reads an approval; with `wait` (0-30 s) the gateway answers as soon as it settles. */
  getApproval(id: string, options?: WaitOptions & { wait?: number }): Promise<Approval>;
  /** Long-polls an approval until it settles, however long a person takes (or its expiry). */
  waitForApproval(id: string, options?: WaitOptions): Promise<SettledApproval>;
  /** POST /v1/runs: the run as it starts (`running`); it goes on in the gateway. */
  startRun(body: RunRequest): Promise<Run>;
  /** GET /v1/runs/{id}: status, steps, usage, answer and transcript. */
  getRun(id: string): Promise<Run>;
  /** POST /v1/runs/{id}/cancel: the run, `cancelled` unless it had already ended. */
  cancelRun(id: string): Promise<Run>;
  /**
   * The run's events until `run.finished`, resuming with Last-Event-ID after a dropped
   * connection; `options.onDelta` gets the model's text as it streams.
   */
  followRun(id: string, options?: FollowOptions): AsyncGenerator<RunEvent, void, undefined>;
}

/** The gateway answers a long poll after at most this many seconds (docs/approvals.md). */
const LONGEST_WAIT_SECONDS = 30;

/**
 * A client for the gateway at `baseUrl`, sending `key` with every request.
 *
 * @example
 * ```ts
 * import { createClient } from "toolgate/client";
 * const toolgate = createClient({ baseUrl: "http://localhost:8787", key: process.env.TOOLGATE_KEY ?? "" });
 * const { tools } = await toolgate.listTools({ format: "anthropic" });
 * ```
 */
export function createClient({ baseUrl, key, fetch }: ClientOptions): ToolgateClient {
  const api = createFetchClient<paths>({
    baseUrl,
    headers: { authorization: `Bearer ${key}` },
    // Called as a plain function: workerd refuses a global fetch invoked on another `this`.
    ...(fetch === undefined ? {} : { fetch }),
  });

  async function getApproval(id: string, { sessionId, signal, wait }: WaitOptions & { wait?: number } = {}): Promise<Approval> {
    const query = { ...(sessionId === undefined ? {} : { session_id: sessionId }), ...(wait === undefined ? {} : { wait }) };
    const result = await api.GET("/v1/approvals/{id}", { params: { path: { id }, query }, ...(signal === undefined ? {} : { signal }) });
    return unwrap("GET", "/v1/approvals/{id}", result);
  }

  return {
    api,
    async listTools(query = {}) {
      return unwrap("GET", "/v1/tools", await api.GET("/v1/tools", { params: { query } }));
    },
    async callTools(request) {
      // The route streams results (text/event-stream) only to a caller that asks for them; this
      // one asks for the JSON batch, so a string here means a proxy changed the answer.
      const data = unwrap("POST", "/v1/tool-calls", await api.POST("/v1/tool-calls", { body: request, headers: { accept: "application/json" } }));
      if (typeof data === "string") throw new Error("toolgate: POST /v1/tool-calls answered text where the JSON batch was asked for");
      return data;
    },
    getApproval,
    async startRun(body) {
      return unwrap("POST", "/v1/runs", await api.POST("/v1/runs", { body }));
    },
    async getRun(id) {
      return unwrap("GET", "/v1/runs/{id}", await api.GET("/v1/runs/{id}", { params: { path: { id } } }));
    },
    async cancelRun(id) {
      return unwrap("POST", "/v1/runs/{id}/cancel", await api.POST("/v1/runs/{id}/cancel", { params: { path: { id } } }));
    },
    followRun(id, options) {
      return followEvents(async (lastEventId, signal) => {
        const result = await api.GET("/v1/runs/{id}/events", {
          params: { path: { id } },
          headers: { accept: "text/event-stream", ...(lastEventId === undefined ? {} : { "last-event-id": lastEventId }) },
          parseAs: "stream",
          ...(signal === undefined ? {} : { signal }),
        });
        const body = unwrap("GET", "/v1/runs/{id}/events", result);
        // A 200 without a body is no stream; treated as a drop, so it is retried and then reported.
        return body ?? new ReadableStream<Uint8Array>({ start: (controller) => controller.close() });
      }, options);
    },
    async waitForApproval(id, options = {}) {
      for (;;) {
        options.signal?.throwIfAborted();
        const approval = await getApproval(id, { ...options, wait: LONGEST_WAIT_SECONDS });
        if (isSettled(approval)) return approval;
      }
    },
  };
}

function isSettled(approval: Approval): approval is SettledApproval {
  return approval.result !== undefined && approval.message !== undefined;
}

/** The answer's body, or a ToolgateRequestError carrying the gateway's error body. */
function unwrap<T>(method: string, path: string, { data, error, response }: { data?: T; error?: unknown; response: Response }): T {
  if (response.ok && data !== undefined) return data;
  throw new ToolgateRequestError(method, path, response.status, error);
}
