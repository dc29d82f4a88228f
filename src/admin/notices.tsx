/** @jsxImportSource hono/jsx */
/** The notices above a console page: what the last action did, and the API's refusal of it. */
import type { FC } from "hono/jsx";

/** `done` as a status, `error` as an alert; either left out shows nothing. */
export const Notices: FC<{ done?: string | undefined; error?: string | undefined }> = ({ done, error }) => (
  <>
    {done === undefined ? null : (
      <p class="notice ok" role="status">
        {done}
      </p>
    )}
    {error === undefined ? null : (
      <p class="notice error" role="alert">
        {error}
      </p>
    )}
  </>
);
