/** @jsxImportSource hono/jsx */
/**
 * The overview's charts as inline SVG rendered on the server: readable with script off and
 * under a CSP that allows none. Colours come from classes in the stylesheet (the CSP forbids
 * inline styles); geometry is plain attributes. Each chart carries its numbers as text too: a
 * `<title>` per bar and a table behind a disclosure, for screen readers and exact values.
 */
import type { FC } from "hono/jsx";

const WIDTH = 640;
const PLOT_LEFT = 44;
const PLOT_RIGHT = 8;
const PLOT_TOP = 8;
const AXIS_BAND = 22;

/** A rounded-up axis maximum: 1, 2 or 5 times a power of ten, at least `value`. */
export function niceMax(value: number): number {
  if (value <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 5, 10]) if (step * power >= value) return step * power;
  return 10 * power;
}

export interface IntervalPoint {
  /** The interval's label under its bar, e.g. `14:05`. */
  label: string;
  calls: number;
  errors: number;
}

/** Calls per interval as bars, the errors among them as a red part at each bar's foot. */
export const CallsChart: FC<{ title: string; points: readonly IntervalPoint[]; height?: number }> = ({ title, points, height = 200 }) => {
  const max = niceMax(Math.max(0, ...points.map((p) => p.calls)));
  const plotHeight = height - PLOT_TOP - AXIS_BAND;
  const slot = (WIDTH - PLOT_LEFT - PLOT_RIGHT) / Math.max(1, points.length);
  const barWidth = Math.max(1, slot * 0.75);
  const y = (v: number) => PLOT_TOP + plotHeight - (v / max) * plotHeight;
  // Label every few bars so the labels never overlap at 640 units of width.
  const every = Math.ceil(points.length / 8);
  const total = points.reduce((sum, p) => sum + p.calls, 0);
  return (
    <figure class="chart">
      <figcaption>{title}</figcaption>
      <svg
        viewBox={`0 0 ${WIDTH} ${height}`}
        role="img"
        aria-label={`${title}: ${total} calls, ${points.reduce((s, p) => s + p.errors, 0)} errors`}
        xmlns="http://www.w3.org/2000/svg"
      >
        <line class="axis" x1={PLOT_LEFT} y1={PLOT_TOP + plotHeight} x2={WIDTH - PLOT_RIGHT} y2={PLOT_TOP + plotHeight} />
        <line class="axis" x1={PLOT_LEFT} y1={PLOT_TOP} x2={PLOT_LEFT} y2={PLOT_TOP + plotHeight} />
        <text x={PLOT_LEFT - 4} y={PLOT_TOP + 10} text-anchor="end">
          {max}
        </text>
        <text x={PLOT_LEFT - 4} y={PLOT_TOP + plotHeight} text-anchor="end">
          0
        </text>
        {points.map((p, i) => {
          const x = PLOT_LEFT + i * slot + (slot - barWidth) / 2;
          return (
            <g data-calls={p.calls} data-errors={p.errors}>
              <title>{`${p.label}: ${p.calls} calls, ${p.errors} errors`}</title>
              <rect
                class="calls"
                x={x.toFixed(1)}
                y={y(p.calls).toFixed(1)}
                width={barWidth.toFixed(1)}
                height={(PLOT_TOP + plotHeight - y(p.calls)).toFixed(1)}
              />
              {p.errors === 0 ? null : (
                <rect
                  class="errors"
                  x={x.toFixed(1)}
                  y={y(p.errors).toFixed(1)}
                  width={barWidth.toFixed(1)}
                  height={(PLOT_TOP + plotHeight - y(p.errors)).toFixed(1)}
                />
              )}
              {i % every === 0 ? (
                <text x={(x + barWidth / 2).toFixed(1)} y={height - 6} text-anchor="middle">
                  {p.label}
                </text>
              ) : null}
            </g>
          );
        })}
      </svg>
      <ul class="legend">
        <li>
          <span class="swatch calls" />
          calls
        </li>
        <li>
          <span class="swatch errors" />
          errors
        </li>
      </ul>
    </figure>
  );
};

export interface DurationBar {
  tool: string;
  p50Ms: number | null;
  p95Ms: number | null;
}

/** Per tool, the median and 95th-percentile durations as two horizontal bars. */
export const DurationChart: FC<{ title: string; bars: readonly DurationBar[] }> = ({ title, bars }) => {
  const row = 30;
  const labelWidth = 180;
  const height = PLOT_TOP + bars.length * row + AXIS_BAND;
  const max = niceMax(Math.max(0, ...bars.map((b) => b.p95Ms ?? 0)));
  const plotWidth = WIDTH - labelWidth - PLOT_RIGHT - 60;
  const w = (v: number | null) => ((v ?? 0) / max) * plotWidth;
  return (
    <figure class="chart">
      <figcaption>{title}</figcaption>
      <svg viewBox={`0 0 ${WIDTH} ${height}`} role="img" aria-label={title} xmlns="http://www.w3.org/2000/svg">
        {bars.map((b, i) => {
          const top = PLOT_TOP + i * row;
          return (
            <g>
              <title>{`${b.tool}: p50 ${b.p50Ms ?? "–"} ms, p95 ${b.p95Ms ?? "–"} ms`}</title>
              <text x={labelWidth - 6} y={top + 17} text-anchor="end">
                {b.tool.length > 28 ? `${b.tool.slice(0, 27)}…` : b.tool}
              </text>
              <rect class="p95" x={labelWidth} y={top + 4} width={w(b.p95Ms).toFixed(1)} height={10} />
              <rect class="p50" x={labelWidth} y={top + 15} width={w(b.p50Ms).toFixed(1)} height={10} />
              <text x={(labelWidth + w(b.p95Ms) + 4).toFixed(1)} y={top + 14}>
                {b.p95Ms ?? "–"} ms
              </text>
            </g>
          );
        })}
        <line class="axis" x1={labelWidth} y1={PLOT_TOP} x2={labelWidth} y2={height - AXIS_BAND} />
        <text x={labelWidth} y={height - 6}>
          0
        </text>
        <text x={labelWidth + plotWidth} y={height - 6} text-anchor="end">{`${max} ms`}</text>
      </svg>
      <ul class="legend">
        <li>
          <span class="swatch p50" />
          p50
        </li>
        <li>
          <span class="swatch p95" />
          p95
        </li>
      </ul>
    </figure>
  );
};
