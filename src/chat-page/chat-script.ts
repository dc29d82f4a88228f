/**
 * The chat page's only script, served from /chat/chat.js so the Content-Security-Policy allows
 * scripts from our own origin and nothing inline. It follows the run's events and, on each one,
 * swaps in the run's section as the server renders it: the page never builds HTML from data
 * itself, so a payload can only ever arrive escaped. Without it the page is the same, on reload.
 * The answer's `delta` events are the one exception, set as text (never markup) into the section's
 * live item; the text is kept here too, since a swap that lands mid-answer brings an empty item.
 */
export const CHAT_SCRIPT = `"use strict";
(() => {
  const box = document.getElementById("run");
  if (box === null || box.dataset.events === undefined) return;
  let busy = false;
  let again = false;
  async function refresh() {
    if (busy) { again = true; return; }
    busy = true;
    try {
      do {
        again = false;
        const response = await fetch(box.dataset.section, { credentials: "same-origin", headers: { accept: "text/html" } });
        if (!response.ok) return;
        const open = Array.from(box.querySelectorAll("details[open]"), (d) => d.id);
        box.innerHTML = await response.text();
        for (const id of open) document.getElementById(id)?.setAttribute("open", "");
        showLive();
      } while (again);
    } finally {
      busy = false;
    }
  }
  let live = "";
  function showLive() {
    const text = document.getElementById("live-text");
    if (text === null) return;
    text.textContent = live;
    text.parentElement.hidden = live === "";
  }
  const events = new EventSource(box.dataset.events);
  events.addEventListener("delta", (event) => { live += JSON.parse(event.data).content; showLive(); });
  // The turn is in the transcript the refresh brings, so the live text ends with it.
  events.addEventListener("model.turn", () => { live = ""; void refresh(); });
  for (const type of ["run.started", "tool.result", "approval.pending", "approval.settled", "input.pending", "input.answered"]) events.addEventListener(type, refresh);
  events.addEventListener("run.finished", () => { events.close(); void refresh(); });
})();
`;
