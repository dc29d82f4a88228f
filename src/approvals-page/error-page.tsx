/** @jsxImportSource hono/jsx */
/** What a person sees when a page request fails: what happened and what to do, never a trace. */
import type { FC } from "hono/jsx";
import { Layout, type Viewer } from "./layout.tsx";

export const ErrorPage: FC<{ title: string; message: string; viewer?: Viewer | undefined }> = ({ title, message, viewer }) => (
  <Layout title={title} viewer={viewer}>
    <h2>{title}</h2>
    <p class="notice error" role="alert">
      {message}
    </p>
    <p>
      <a href="/approvals">Back to the pending approvals</a>
    </p>
  </Layout>
);
