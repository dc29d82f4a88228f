/**
 * A request's connection as the pipeline's scope holds it (pipeline/types.ts, Connection): its
 * abort signal and origin, each read off the request the first time a call asks. Creating the
 * request's AbortSignal showed in the core pipeline's profile, and most calls never need it.
 * A class, not an object literal with getters: V8 builds such a literal slowly, and it showed
 * in /mcp's profile.
 */
import type { Connection } from "../pipeline/types.ts";
import { requestOrigin } from "./request-origin.ts";

class RequestConnection implements Connection {
  readonly #request: Request;
  #signal: AbortSignal | undefined;
  #origin: string | undefined;
  readonly callerToken: string | undefined;

  constructor(request: Request, callerToken: string | undefined) {
    this.#request = request;
    this.callerToken = callerToken;
  }

  get signal(): AbortSignal {
    this.#signal ??= this.#request.signal;
    return this.#signal;
  }

  get origin(): string {
    this.#origin ??= requestOrigin(this.#request.url);
    return this.#origin;
  }
}

/** The connection of `request`; `callerToken` when the door signed it in with an OAuth access token. */
export const requestConnection = (request: Request, callerToken?: string): Connection => new RequestConnection(request, callerToken);
