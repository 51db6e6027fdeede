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

/** One run's values of a figure, kept when several runs are combined. */
export interface RunValues {
  svc: number;
  baseline: number;
  ratio: number;
}

/**
 * Combines the figures of several full runs (issue 14: "the median of 3 full
 * runs, with the spread"): per figure, the median svc value, the median
 * baseline and the median ratio, the target judged on those medians; each
 * run's values are kept in `runs`. A figure missing from a run (its stage
 * failed there) is combined from the runs that have it.
 */
export function combineRuns(runs: readonly (readonly Figure[])[]): Figure[] {
  const order: string[] = [];
  const byId = new Map<string, Figure[]>();
  for (const run of runs) {
    for (const f of run) {
      if (!byId.has(f.id)) {
        order.push(f.id);
        byId.set(f.id, []);
      }
      byId.get(f.id)!.push(f);
    }
  }
  return order.map((id) => {
    const all = byId.get(id)!;
    const first = all[0];
    const combined = figure({
      id,
      label: first.label,
      unit: first.unit,
      better: first.better,
      svc: median(all.map((f) => f.svc)),
      baseline: median(all.map((f) => f.baseline)),
      baselineLabel: first.baselineLabel,
      target: first.target ?? undefined,
      details: first.details,
    });
    const ratios = all.map((f) => f.ratio).filter(Number.isFinite);
    const ratio = ratios.length > 0 ? median(ratios) : combined.ratio;
    let met = combined.met;
    if (first.target?.on === "ratio") {
      met = first.target.op === ">="
        ? ratio >= first.target.value
        : first.target.op === "<="
        ? ratio <= first.target.value
        : ratio === first.target.value;
    }
    const values: RunValues[] = all.map((f) => ({
      svc: f.svc,
      baseline: f.baseline,
      ratio: f.ratio,
    }));
    return { ...combined, ratio, met, details: { ...first.details, runs: values } };
  });
}

function formatRatio(figure: Figure): string {
  if (!Number.isFinite(figure.ratio)) return "n/a";
  const text = `${figure.ratio.toFixed(3)}×`;
  // One run has no spread; a stage's own `runs` detail (its rounds, without ratios) is not one.
  const runs = figure.details.runs as Partial<RunValues>[] | undefined;
  const ratios = (runs ?? []).map((run) => run.ratio ?? NaN).filter(Number.isFinite);
  if (ratios.length < 2) return text;
  return `${text} (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})`;
}

/** The markdown table of a run (of the medians, with each ratio's spread, for several runs). */
export function markdownTable(figures: readonly Figure[]): string {
  const rows = [
    "| figure | svc | baseline | ratio (svc ÷ baseline) | target | |",
    "| --- | ---: | --- | ---: | --- | --- |",
  ];
  for (const f of figures) {
    rows.push(
      `| ${f.label} | ${formatNumber(f.svc)} ${f.unit} | ${
        formatNumber(f.baseline)
      } ${f.unit} (${f.baselineLabel}) | ${formatRatio(f)} | ${formatTarget(f)} | ${
        formatMet(f)
      } |`,
    );
  }
  return rows.join("\n");
}
