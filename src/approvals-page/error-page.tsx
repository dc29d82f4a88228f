/** @jsxImportSource hono/jsx */
/** What a person sees when a page request fails: what happened and what to do, never a trace. */
import type { FC } from "hono/jsx";
import { Layout, type Viewer } from "./layout.tsx";
import { APPROVALS_SITE, type NavLink, type PageSite } from "./page-site.ts";

export const ErrorPage: FC<{
  title: string;
  message: string;
  viewer?: Viewer | undefined;
  site?: PageSite;
  /** Where to go instead; by default the site's home (a refused role gets a page it may open). */
  back?: Pick<NavLink, "href" | "label"> | undefined;
}> = ({ title, message, viewer, site = APPROVALS_SITE, back }) => (
  <Layout title={title} viewer={viewer} site={site}>
    <h2>{title}</h2>
    <p class="notice error" role="alert">
      {message}
    </p>
    <p>
      {back === undefined ? (
        <a href={site.base}>{site === APPROVALS_SITE ? "Back to the pending approvals" : `Back to ${site.title}`}</a>
      ) : (
        <a href={back.href}>{`Go to ${back.label}`}</a>
      )}
    </p>
  </Layout>
);
