/**
 * Summarises a V8 `.cpuprofile` (from `deno run --cpu-prof`, or
 * `deno task bench --cpu-prof=DIR`): self and inclusive time per function.
 * With `--window NAME`, only the samples from the first to the last one whose
 * stack holds function NAME count (`--window '#pump'` isolates ingestion from
 * the read-back that follows it).
 *
 *   deno run -A scripts/bench/profile_summary.ts FILE [--top 30] [--window NAME]
 */
import { parseArgs } from "node:util";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** A function's self and inclusive microseconds. */
export interface FunctionTime {
  name: string;
  selfUs: number;
  inclusiveUs: number;
}

function label(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  const where = url.replace(/^.*\/(src|scripts|tests)\//, "$1/").replace(/^.*\/npm\//, "npm:");
  return `${functionName || "(anonymous)"} ${where}:${lineNumber + 1}`;
}

/** Time per function over the whole profile, or over the window where `window` is on stack. */
export function summarise(
  profile: CpuProfile,
  window?: string,
): { totalUs: number; functions: FunctionTime[] } {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) {
    for (const child of node.children ?? []) parent.set(child, node.id);
  }
  const stack = (id: number): ProfileNode[] => {
    const frames: ProfileNode[] = [];
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      frames.push(byId.get(at)!);
    }
    return frames;
  };
  let first = 0;
  let last = profile.samples.length - 1;
  if (window !== undefined) {
    const onStack = (id: number) => stack(id).some((n) => n.callFrame.functionName === window);
    first = profile.samples.findIndex(onStack);
    last = profile.samples.findLastIndex(onStack);
    if (first < 0) throw new Error(`No sample has "${window}" on its stack`);
  }
  const times = new Map<string, FunctionTime>();
  const entry = (name: string) => {
    let time = times.get(name);
    if (!time) times.set(name, time = { name, selfUs: 0, inclusiveUs: 0 });
    return time;
  };
  let totalUs = 0;
  for (let i = first; i <= last; i++) {
    const deltaUs = profile.timeDeltas[i + 1] ?? 0;
    totalUs += deltaUs;
    const frames = stack(profile.samples[i]);
    entry(label(frames[0])).selfUs += deltaUs;
    for (const name of new Set(frames.map(label))) entry(name).inclusiveUs += deltaUs;
  }
  return { totalUs, functions: [...times.values()] };
}

if (import.meta.main) {
  const { values, positionals } = parseArgs({
    args: Deno.args,
    allowPositionals: true,
    options: { top: { type: "string", default: "30" }, window: { type: "string" } },
  });
  if (positionals.length !== 1) {
    console.error("Usage: profile_summary.ts FILE [--top N] [--window FUNCTION]");
    Deno.exit(2);
  }
  const profile = JSON.parse(Deno.readTextFileSync(positionals[0])) as CpuProfile;
  const { totalUs, functions } = summarise(profile, values.window);
  const top = Number(values.top);
  const line = (us: number, name: string) =>
    `${(us / 1000).toFixed(0).padStart(7)} ms ${(100 * us / totalUs).toFixed(1).padStart(5)}%  ${
      name.length > 120 ? name.slice(0, 117) + "..." : name
    }`;
  console.log(
    `${(totalUs / 1000).toFixed(0)} ms sampled${values.window ? ` (window ${values.window})` : ""}`,
  );
  console.log("--- self");
  for (const f of functions.toSorted((a, b) => b.selfUs - a.selfUs).slice(0, top)) {
    console.log(line(f.selfUs, f.name));
  }
  console.log("--- inclusive");
  for (const f of functions.toSorted((a, b) => b.inclusiveUs - a.inclusiveUs).slice(0, top)) {
    console.log(line(f.inclusiveUs, f.name));
  }
}
