/** The body of a 403: the role (or scope) a route needs, the one the key has, and how to get access. */
import type { RequestFailure } from "./request-failure-types.ts";

/** For requestErrorBody's `forbidden` case. */
export function describeForbidden(failure: Extract<RequestFailure, { kind: "forbidden" }>) {
  const roles = failure.required.join(" or ");
  if (failure.scope !== undefined) {
    return {
      error: `This route needs the ${roles} role or the '${failure.scope}' scope; this API key has the ${failure.role} role and not that scope.`,
      error_code: "FORBIDDEN",
      suggestion: `Use an admin key, or give this key the scope: PATCH /v1/keys/{id} with {"scopes": ["${failure.scope}"]}.`,
    };
  }
  return {
    error: `This route needs the ${roles} role; this API key has the ${failure.role} role.`,
    error_code: "FORBIDDEN",
    suggestion: `Use a key with the ${roles} role (an admin creates them with POST /v1/keys).`,
  };
}
