/** @jsxImportSource hono/jsx */
/**
 * The frame of every page of a signed-in site: document head, site header (who is signed in,
 * sign-out), the navigation across the sites the viewer's role may open, main.
 */
import type { Child, FC } from "hono/jsx";
import type { Role } from "../auth/principal.ts";
import { APPROVALS_SITE, cssPathOf, navFor, type PageSite } from "./page-site.ts";

/** Who is looking at the page, and the token their forms carry. */
export interface Viewer {
  keyId: string;
  name: string;
  role: Role;
  csrfToken: string;
}

export const PAGE_CSS_PATH = cssPathOf(APPROVALS_SITE);

/** A hidden field carrying the sign-in's CSRF token; every form of a signed-in page has one. */
export const CsrfField: FC<{ token: string }> = ({ token }) => <input type="hidden" name="csrf" value={token} />;

export const Layout: FC<{ title: string; viewer?: Viewer | undefined; site?: PageSite; children?: Child }> = ({
  title,
  viewer,
  site = APPROVALS_SITE,
  children,
}) => {
  // A viewer refused this site (page-auth.tsx) gets a header that leads to a site it may open.
  const home = viewer === undefined || site.roles.includes(viewer.role) ? site.base : (navFor(viewer.role)[0]?.href ?? site.base);
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="no-referrer" />
        <title>{`${title} · ${site.title}`}</title>
        <link rel="stylesheet" href={cssPathOf(site)} />
      </head>
      <body>
        <header class="site">
          <h1>
            <a href={home}>{site.title}</a>
          </h1>
          {viewer === undefined ? null : (
            <form method="post" action={`${site.base}/sign-out`}>
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
        {viewer === undefined ? null : (
          <nav class="site" aria-label="Sections">
            <ul>
              {navFor(viewer.role).map((link) => (
                <li>
                  <a href={link.href}>{link.label}</a>
                </li>
              ))}
            </ul>
          </nav>
        )}
        <main id="main">{children}</main>
      </body>
    </html>
  );
};
