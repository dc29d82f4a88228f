/**
 * How the web and http tools call out: every URL and every redirect hop passes the SSRF guard
 * (src/net/outbound-url.ts) before anything is sent, through the call's own `ctx.fetch` (its
 * deadline, circuit breaker and retryable failures). A refusal is a typed failure: a private URL
 * in the arguments is INVALID_ARGUMENTS naming the field; a redirect to one fails the call with
 * a message that says where it was bounced to and why, not a bare network error.
 */
import { loadConfig } from "../../src/config/config.ts";
import { ToolFailureError } from "../../src/errors/tool-failure.ts";
import { checkOutboundUrl, fetchOutbound, OutboundUrlError } from "../../src/net/outbound-url.ts";
import type { ToolContext } from "../../src/registry/types.ts";

export interface CheckedFetchOptions {
  /** The argument the URL came from (`url`, `urls.2`), named in the refusal. */
  field: string;
  /** Follow redirects, each hop checked; false returns the 3xx itself. */
  follow: boolean;
  /** Per hop: the headers to send to that URL (a secret only to the hosts it is granted to). */
  headersFor?: (url: URL) => HeadersInit;
}

/** Fetches `url` for the tool call `ctx`, refusing private targets at the first hop and at every redirect. */
export async function checkedFetch(
  ctx: Pick<ToolContext, "env" | "fetch" | "toolName">,
  url: string,
  init: RequestInit,
  options: CheckedFetchOptions,
): Promise<Response> {
  const allow = loadConfig(ctx.env).outboundAllow;
  const first = checkOutboundUrl(url, allow);
  if (!first.ok) {
    throw new ToolFailureError({
      kind: "invalid_arguments",
      name: ctx.toolName,
      issues: [{ path: options.field, message: `${first.reason}; only public http(s) URLs can be fetched` }],
    });
  }
  const send = (target: string, hopInit: RequestInit) =>
    ctx.fetch(target, options.headersFor === undefined ? hopInit : { ...hopInit, headers: options.headersFor(new URL(target)) });
  if (!options.follow) return send(first.url.href, { ...init, redirect: "manual" });
  try {
    return await fetchOutbound(first.url.href, init, allow, send);
  } catch (error) {
    if (!(error instanceof OutboundUrlError)) throw error;
    throw new ToolFailureError({
      kind: "handler_threw",
      name: ctx.toolName,
      detail: `${url} was not fetched to the end: ${error.message}. Redirects to private, loopback or link-local addresses are refused.`,
      retryable: false,
    });
  }
}
