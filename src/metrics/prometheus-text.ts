/**
 * The Prometheus text exposition format (version 0.0.4), as much of it as GET /metrics needs:
 * counters and one histogram, each family with its HELP and TYPE lines, samples with labels.
 */

/** The Content-Type a scraper expects for this format. */
export const PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

export type Labels = Readonly<Record<string, string>>;

export interface Sample {
  /** The metric name, which for a histogram carries its `_bucket`, `_sum` or `_count` suffix. */
  name: string;
  labels: Labels;
  value: number;
}

export interface Family {
  name: string;
  type: "counter" | "gauge" | "histogram";
  help: string;
  samples: readonly Sample[];
}

// The format's label value escapes: backslash, double quote and line feed.
const escapeLabel = (value: string) => value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
const escapeHelp = (value: string) => value.replace(/\\/g, "\\\\").replace(/\n/g, "\\n");

function sampleLine({ name, labels, value }: Sample): string {
  const pairs = Object.entries(labels).map(([label, v]) => `${label}="${escapeLabel(v)}"`);
  return `${name}${pairs.length === 0 ? "" : `{${pairs.join(",")}}`} ${Number.isFinite(value) ? String(value) : value > 0 ? "+Inf" : "NaN"}`;
}

/**
 * The families as one exposition text, built in one pass.
 *
 * @example
 * prometheusText([{ name: "x_total", type: "counter", help: "Xs.", samples: [{ name: "x_total", labels: {}, value: 1 }] }]);
 */
export function prometheusText(families: readonly Family[]): string {
  const lines: string[] = [];
  for (const family of families) {
    lines.push(`# HELP ${family.name} ${escapeHelp(family.help)}`, `# TYPE ${family.name} ${family.type}`);
    for (const sample of family.samples) lines.push(sampleLine(sample));
  }
  return `${lines.join("\n")}\n`;
}
