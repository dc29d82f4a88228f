/**
 * `toolgate/client` (package.json `exports`): the typed client and its wire types. Named
 * exports only, so that making a symbol public is a decision.
 */
export {
  createClient,
  type Approval,
  type ClientOptions,
  type ListToolsQuery,
  type Run,
  type RunRequest,
  type SettledApproval,
  type ToolCallsRequest,
  type ToolCallsResponse,
  type ToolFormat,
  type ToolgateClient,
  type ToolList,
  type WaitOptions,
} from "./create-client.ts";
export type { FollowOptions, RunDelta, RunEvent, RunEventType } from "./follow-run.ts";
export { ToolgateRequestError, type RequestErrorBody } from "./request-error.ts";
export type { components, paths } from "./openapi.gen.ts";
