/**
 * The page's only stylesheet, served from /approvals/page.css so the Content-Security-Policy can
 * forbid every inline style and script. Mobile first: one column, full-width controls, and text
 * that wraps (long tool names and arguments included) down to a 320 px viewport.
 */
export const PAGE_CSS = `
*, *::before, *::after { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1b1b1b; background: #f6f6f4; }
header.site { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: center; justify-content: space-between; padding: .75rem 1rem; background: #1d2b3a; color: #fff; }
header.site a { color: #fff; }
header.site h1 { font-size: 1.15rem; margin: 0; }
header.site form { margin: 0; }
nav.site { background: #2c3e50; padding: 0 1rem; }
nav.site ul { display: flex; flex-wrap: wrap; gap: 0 1rem; list-style: none; margin: 0 auto; padding: .25rem 0; max-width: 70rem; }
nav.site a { color: #fff; display: inline-block; padding: .5rem 0; min-height: 44px; line-height: 28px; }
main { max-width: 60rem; margin: 0 auto; padding: 1rem; }
h2 { font-size: 1.25rem; margin: 1.5rem 0 .75rem; }
h3 { font-size: 1.05rem; margin: 0 0 .5rem; overflow-wrap: anywhere; }
a { color: #0b57a4; }
.card { background: #fff; border: 1px solid #d4d4cf; border-radius: 8px; padding: 1rem; margin: 0 0 1rem; }
.cards { list-style: none; margin: 0; padding: 0; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .25rem .75rem; margin: 0 0 .75rem; }
dl.facts dt { font-weight: 600; }
dl.facts dd { margin: 0; overflow-wrap: anywhere; }
pre { margin: 0 0 .75rem; padding: .75rem; background: #f0f0ec; border-radius: 6px; overflow-x: auto; white-space: pre-wrap; overflow-wrap: anywhere; font-size: .9rem; }
.actions { display: flex; flex-wrap: wrap; gap: .75rem; align-items: flex-end; }
.actions form { display: flex; flex-wrap: wrap; gap: .5rem; align-items: flex-end; margin: 0; }
.field { display: flex; flex-direction: column; gap: .25rem; min-width: 12rem; flex: 1 1 14rem; }
label { font-weight: 600; }
fieldset.toolsets { border: 0; margin: 0 0 1rem; padding: 0; }
fieldset.toolsets legend { font-weight: 600; margin-bottom: .25rem; }
fieldset.toolsets label { display: block; font-weight: 400; min-height: 44px; padding: .5rem 0; }
input[type=text], input[type=password], textarea { font: inherit; padding: .5rem; border: 1px solid #8a8a84; border-radius: 6px; width: 100%; }
button { font: inherit; min-height: 44px; padding: .5rem 1rem; border-radius: 6px; border: 1px solid #1d2b3a; background: #fff; color: #1d2b3a; cursor: pointer; }
button.approve { background: #1f6f3f; border-color: #1f6f3f; color: #fff; }
button.deny { background: #a3261b; border-color: #a3261b; color: #fff; }
button.link { min-height: auto; padding: .25rem .5rem; border-color: #fff; background: transparent; color: #fff; }
:focus-visible { outline: 3px solid #f0a500; outline-offset: 2px; }
.notice { padding: .75rem 1rem; border-radius: 6px; margin: 0 0 1rem; border: 1px solid; }
.notice.ok { background: #e7f4ec; border-color: #1f6f3f; }
.notice.error { background: #fbeceb; border-color: #a3261b; }
.muted { color: #55554f; }
.status { font-weight: 600; text-transform: uppercase; font-size: .85rem; letter-spacing: .03em; }
.status.approved { color: #1f6f3f; } .status.denied, .status.expired { color: #a3261b; } .status.pending { color: #8a5a00; }
.table-scroll { overflow-x: auto; }
/* Wide enough that short words never break; narrower screens scroll the table, not the page. */
table { border-collapse: collapse; width: 100%; min-width: 52rem; background: #fff; }
caption { text-align: left; padding: .25rem 0; }
th, td { text-align: left; vertical-align: top; padding: .4rem .5rem; border-bottom: 1px solid #d4d4cf; }
td.id { overflow-wrap: anywhere; max-width: 12rem; }
td pre { margin: 0; max-width: 28rem; }
@media (max-width: 40rem) {
  dl.facts { grid-template-columns: 1fr; }
  dl.facts dd { margin-bottom: .25rem; }
  .field { flex: none; min-width: 0; }
  .actions, .actions form { flex-direction: column; align-items: stretch; }
  button { width: 100%; }
  button.link { width: auto; }
}
`;
