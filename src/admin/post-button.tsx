/** @jsxImportSource hono/jsx */
/** A one-button form posting to an action with the session's CSRF token: every console change without fields. */
import type { FC } from "hono/jsx";
import { CsrfField, type Viewer } from "../approvals-page/layout.tsx";

export const PostButton: FC<{ viewer: Viewer; action: string; label: string; ariaLabel: string; kind?: "approve" | "deny" }> = ({
  viewer,
  action,
  label,
  ariaLabel,
  kind,
}) => (
  <form method="post" action={action}>
    <CsrfField token={viewer.csrfToken} />
    <button type="submit" class={kind} aria-label={ariaLabel}>
      {label}
    </button>
  </form>
);
