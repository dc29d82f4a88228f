/** The error the typed client throws when the gateway refuses a request (any non-2xx answer). */
import type { components } from "./openapi.gen.ts";

/** The gateway's request-level error body (docs/errors.md). */
export type RequestErrorBody = components["schemas"]["RequestError"];

/**
 * A refused request: the HTTP status and the gateway's error body, whose `error_code` and
 * `suggestion` say what to do next. Calls that ran and failed are not this: a batch answers 200
 * with each call's own status.
 */
export class ToolgateRequestError extends Error {
  override readonly name = "ToolgateRequestError";
  readonly status: number;
  readonly body: RequestErrorBody | undefined;

  constructor(method: string, path: string, status: number, body: unknown) {
    const parsed = isRequestError(body) ? body : undefined;
    super(`${method} ${path} answered ${status}${parsed === undefined ? "" : `: ${parsed.error_code}: ${parsed.error}`}`);
    this.status = status;
    this.body = parsed;
  }

  /** The gateway's error code (e.g. `UNKNOWN_TOOLSET`), or undefined when the body was not the gateway's. */
  get errorCode(): string | undefined {
    return this.body?.error_code;
  }
}

function isRequestError(body: unknown): body is RequestErrorBody {
  return (
    typeof body === "object" &&
    body !== null &&
    typeof (body as { error_code?: unknown }).error_code === "string" &&
    typeof (body as { error?: unknown }).error === "string"
  );
}
