/** @jsxImportSource hono/jsx */
/** The frame of every approvals page: document head, site header (who is signed in), main. */
import type { Child, FC } from "hono/jsx";
import type { Role } from "../auth/principal.ts";

/** Who is looking at the page, and the token their forms carry. */
export interface Viewer {
  keyId: string;
  name: string;
  role: Role;
  csrfToken: string;
}

export const PAGE_CSS_PATH = "/approvals/page.css";

/** A hidden field carrying the sign-in's CSRF token; every form of a signed-in page has one. */
export const CsrfField: FC<{ token: string }> = ({ token }) => <input type="hidden" name="csrf" value={token} />;

export const Layout: FC<{ title: string; viewer?: Viewer | undefined; children?: Child }> = ({ title, viewer, children }) => (
  <html lang="en">
    <head>
      <meta charset="utf-8" />
      <meta name="viewport" content="width=device-width, initial-scale=1" />
      <meta name="referrer" content="no-referrer" />
      <title>{`${title} · toolgate approvals`}</title>
      <link rel="stylesheet" href={PAGE_CSS_PATH} />
    </head>
    <body>
      <header class="site">
        <h1>
          <a href="/approvals">toolgate approvals</a>
        </h1>
        {viewer === undefined ? null : (
          <form method="post" action="/approvals/sign-out">
            <span>
              Signed in as <strong>{viewer.name}</strong> ({viewer.role}){" "}
            </span>
            <CsrfField token={viewer.csrfToken} />
            <button type="submit" class="link">
              Sign out
            </button>
          </form>
        )}
      </header>
      <main id="main">{children}</main>
    </body>
  </html>
);
