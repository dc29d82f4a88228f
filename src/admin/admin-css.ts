/**
 * The admin console's stylesheet: the approvals page's, plus the figures, charts
 * and forms of the console. Still mobile first: the charts scale to the screen's width (SVG
 * viewBox) and wide tables scroll inside their box.
 */
import { PAGE_CSS } from "../approvals-page/page-css.ts";

export const ADMIN_CSS = `${PAGE_CSS}
main { max-width: 72rem; }
.figures { display: grid; grid-template-columns: repeat(auto-fit, minmax(9rem, 1fr)); gap: .75rem; margin: 0 0 1rem; padding: 0; list-style: none; }
.figures li { background: #fff; border: 1px solid #d4d4cf; border-radius: 8px; padding: .75rem; }
.figures .value { display: block; font-size: 1.5rem; font-weight: 700; }
.windows { display: flex; flex-wrap: wrap; gap: .5rem; margin: 0 0 1rem; padding: 0; list-style: none; }
.windows a { display: inline-block; padding: .4rem .8rem; border: 1px solid #1d2b3a; border-radius: 6px; text-decoration: none; min-height: 44px; line-height: 1.7; }
.windows a[aria-current] { background: #1d2b3a; color: #fff; }
figure.chart { margin: 0 0 1rem; background: #fff; border: 1px solid #d4d4cf; border-radius: 8px; padding: .5rem; }
figure.chart svg { display: block; width: 100%; height: auto; }
figure.chart figcaption { font-weight: 600; margin: 0 0 .25rem; }
svg .calls { fill: #4a7bb7; } svg .errors { fill: #c0392b; } svg .p50 { fill: #4a7bb7; } svg .p95 { fill: #e0a030; }
svg .axis { stroke: #8a8a84; stroke-width: 1; } svg text { font: 11px system-ui, sans-serif; fill: #33332f; }
.legend { display: flex; gap: 1rem; font-size: .9rem; margin: .25rem 0 0; padding: 0; list-style: none; }
.legend .swatch { display: inline-block; width: .8rem; height: .8rem; margin-right: .3rem; vertical-align: middle; }
.swatch.calls, .swatch.p50 { background: #4a7bb7; } .swatch.errors { background: #c0392b; } .swatch.p95 { background: #e0a030; }
form.filters { display: flex; flex-wrap: wrap; gap: .5rem; align-items: flex-end; margin: 0 0 1rem; }
form.filters .field { flex: 1 1 10rem; min-width: 8rem; }
select { font: inherit; padding: .5rem; border: 1px solid #8a8a84; border-radius: 6px; width: 100%; background: #fff; }
input[type=number], input[type=datetime-local], input[type=url] { font: inherit; padding: .5rem; border: 1px solid #8a8a84; border-radius: 6px; width: 100%; }
.secret { font-family: ui-monospace, monospace; font-size: 1.05rem; background: #fff8e1; padding: .75rem; border: 2px dashed #8a5a00; border-radius: 6px; overflow-wrap: anywhere; user-select: all; }
.pager { display: flex; gap: 1rem; margin: 1rem 0; }
.side-by-side { display: grid; grid-template-columns: repeat(auto-fit, minmax(16rem, 1fr)); gap: 1rem; }
`;
