/**
 * `toolgate/client` (package.json `exports`): the typed client and its wire types. Named
 * exports only, so that making a symbol public is a decision.
 */
export {
  type Approval,
  type ClientOptions,
  createClient,
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
export type { components, paths } from "./openapi.gen.ts";
export { type RequestErrorBody, ToolgateRequestError } from "./request-error.ts";
