/** The chat page's stylesheet: the approvals page's, plus the transcript's bubbles. */
import { PAGE_CSS } from "../approvals-page/page-css.ts";

export const CHAT_CSS = `${PAGE_CSS}
ol.transcript { list-style: none; margin: 0 0 1rem; padding: 0; }
ol.transcript > li { background: #fff; border: 1px solid #d4d4cf; border-radius: 8px; padding: .75rem 1rem; margin: 0 0 .75rem; }
ol.transcript > li.user { background: #eef4fb; border-color: #9bb8d8; margin-left: 2rem; }
ol.transcript > li.tool-step details { margin: .25rem 0; }
ol.transcript .who { font-weight: 600; font-size: .85rem; color: #55554f; margin: 0 0 .25rem; }
ol.transcript p.text { margin: 0; white-space: pre-wrap; overflow-wrap: anywhere; }
summary { cursor: pointer; min-height: 44px; display: flex; align-items: center; gap: .5rem; overflow-wrap: anywhere; }
.status.running, .status.awaiting_approval, .status.awaiting_input { color: #8a5a00; } .status.completed { color: #1f6f3f; } .status.failed, .status.cancelled, .status.limit_reached, .status.error { color: #a3261b; } .status.ok { color: #1f6f3f; }
form.question .choices button { margin: 0 .5rem .5rem 0; min-height: 44px; }
@media (max-width: 40rem) { ol.transcript > li.user { margin-left: 0; } }
`;
