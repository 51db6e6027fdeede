/**
 * Figures, statistics and the outputs of a bench run: the markdown table
 * printed on stdout and `bench/results.json`.
 */

/** A target on a figure: on the ratio (svc ÷ baseline) or on the svc value itself. */
export interface Target {
  on: "ratio" | "svc";
  op: ">=" | "<=" | "==";
  value: number;
}

/** One measured figure: the svc value, the same-run baseline, and svc ÷ baseline. */
export interface Figure {
  id: string;
  label: string;
  unit: string;
  /** Whether a higher svc value is better (throughput) or a lower one (time, memory). */
  better: "higher" | "lower";
  svc: number;
  baseline: number;
  baselineLabel: string;
  ratio: number;
  target: Target | null;
  met: boolean | null;
  details: Record<string, unknown>;
}

/** Builds a figure; the ratio is always svc ÷ baseline, `met` follows the target. */
export function figure(
  fields: Omit<Figure, "ratio" | "met" | "details" | "target"> & {
    target?: Target;
    details?: Record<string, unknown>;
  },
): Figure {
  const ratio = fields.baseline === 0 ? NaN : fields.svc / fields.baseline;
  const target = fields.target ?? null;
  let met: boolean | null = null;
  if (target) {
    const value = target.on === "ratio" ? ratio : fields.svc;
    met = target.op === ">="
      ? value >= target.value
      : target.op === "<="
      ? value <= target.value
      : value === target.value;
  }
  return { ...fields, ratio, target, met, details: fields.details ?? {} };
}

/** The nearest-rank percentile `p` (0–100) of `values`. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(sorted.length, rank) - 1];
}

/** The median of `values`. */
export function median(values: readonly number[]): number {
  return percentile(values, 50);
}

/** What the run ran on (docs/benchmarks.md quotes it). */
export interface Machine {
  nproc: number;
  cpuModel: string;
  memoryTotalMiB: number;
  os: string;
  kernel: string;
  deno: string;
  v8: string;
  loadAverageAtStart: number[];
}

/** Reads the machine description from /proc and Deno. */
export function describeMachine(): Machine {
  const read = (path: string) => {
    try {
      return Deno.readTextFileSync(path);
    } catch {
      return "";
    }
  };
  const cpuModel = /^model name\s*:\s*(.+)$/m.exec(read("/proc/cpuinfo"))?.[1] ?? "unknown";
  const memKiB = Number(/^MemTotal:\s+(\d+) kB/m.exec(read("/proc/meminfo"))?.[1] ?? 0);
  const os = /^PRETTY_NAME="?([^"\n]+)"?$/m.exec(read("/etc/os-release"))?.[1] ?? Deno.build.os;
  return {
    nproc: navigator.hardwareConcurrency,
    cpuModel,
    memoryTotalMiB: Math.round(memKiB / 1024),
    os,
    kernel: Deno.osRelease(),
    deno: Deno.version.deno,
    v8: Deno.version.v8,
    loadAverageAtStart: Deno.loadavg(),
  };
}

/** Formats a number for the table: 3 significant digits, thousands grouped. */
export function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  const abs = Math.abs(value);
  if (abs >= 1000 || Number.isInteger(value)) return Math.round(value).toLocaleString("en-US");
  if (abs >= 100) return value.toFixed(0);
  if (abs >= 10) return value.toFixed(1);
  if (abs >= 1) return value.toFixed(2);
  if (abs === 0) return "0";
  return value.toPrecision(3);
}

function formatTarget(figure: Figure): string {
  const target = figure.target;
  if (!target) return "—";
  const op = target.op === ">=" ? "≥" : target.op === "<=" ? "≤" : "=";
  return target.on === "ratio"
    ? `ratio ${op} ${target.value}`
    : `${op} ${formatNumber(target.value)} ${figure.unit}`;
}

function formatMet(figure: Figure): string {
  return figure.met === null ? "—" : figure.met ? "met" : "**missed**";
}

/** The markdown table of a run. */
export function markdownTable(figures: readonly Figure[]): string {
  const rows = [
    "| figure | svc | baseline | ratio (svc ÷ baseline) | target | |",
    "| --- | ---: | --- | ---: | --- | --- |",
  ];
  for (const f of figures) {
    rows.push(
      `| ${f.label} | ${formatNumber(f.svc)} ${f.unit} | ${
        formatNumber(f.baseline)
      } ${f.unit} (${f.baselineLabel}) | ${
        Number.isFinite(f.ratio) ? f.ratio.toFixed(3) : "n/a"
      }× | ${formatTarget(f)} | ${formatMet(f)} |`,
    );
  }
  return rows.join("\n");
}
