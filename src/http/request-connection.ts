/**
 * A request's connection as the pipeline's scope holds it (pipeline/types.ts, Connection): its
 * abort signal and origin, each read off the request the first time a call asks. Creating the
 * request's AbortSignal showed in the core pipeline's profile, and most calls never need it.
 */
import type { Connection } from "../pipeline/types.ts";
import { requestOrigin } from "./request-origin.ts";

export function requestConnection(request: Request): Connection {
  let signal: AbortSignal | undefined;
  let origin: string | undefined;
  return {
    get signal() {
      signal ??= request.signal;
      return signal;
    },
    get origin() {
      origin ??= requestOrigin(request.url);
      return origin;
    },
  };
}
