/** Turns a page component into the HTML response. */
import type { Context } from "hono";
import { html } from "hono/html";
import type { JSX } from "hono/jsx/jsx-runtime";
import type { ContentfulStatusCode } from "hono/utils/http-status";

/** The page as a full HTML document (standards mode) with the given status. */
export function renderPage(c: Context, page: JSX.Element, status: ContentfulStatusCode = 200): Response | Promise<Response> {
  return c.html(html`<!DOCTYPE html>${page}`, status);
}
