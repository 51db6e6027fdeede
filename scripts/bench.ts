/**
 * `deno task bench [--quick] [--only=a,b] [--runs=N] [--cpu-prof=DIR] [--out=FILE]`: the
 * svc benchmarks (docs/benchmarks.md). Every figure is measured against a
 * baseline in the same run and reported as svc ÷ baseline plus the absolute
 * numbers: a markdown table on stdout and `bench/results.json`. Everything
 * runs on a temporary root on loopback Unix sockets; every process and the
 * root are removed at the end, also on failure, timeout or Ctrl-C.
 */
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";
import { type BenchContext, FULL, QUICK, settleDisk } from "./bench/context.ts";
import { ProcessRegistry } from "./bench/processes.ts";
import { combineRuns, describeMachine, type Figure, markdownTable } from "./bench/report.ts";
import { healthThroughput, startAndMemory } from "./bench/stages_server.ts";
import { ingestion, latency } from "./bench/stages_output.ts";
import { concurrentSessions } from "./bench/stages_concurrent.ts";
import { streamFanout, streamLatency } from "./bench/stages_streams.ts";
import { pageRead, schedulerPass } from "./bench/stages_store.ts";
import { bigPageRead } from "./bench/stages_big_page.ts";
import { linesPageRead } from "./bench/stages_lines.ts";
import { trickleLatency } from "./bench/stages_trickle.ts";
import { uiBudgets } from "./bench/stages_ui.ts";
import { webBudgets } from "./bench/stages_web.ts";

/** The whole run must end within this, or it is aborted and cleaned up. */
const RUN_LIMIT_MS = 10 * 60_000 - 15_000;
/** On Ctrl-C or timeout, daemons get this long to end their sessions before SIGKILL. */
const ABORT_GRACE_MS = 5000;

const STAGES: Record<string, (ctx: BenchContext) => Promise<Figure[]>> = {
  start: startAndMemory,
  health: healthThroughput,
  latency,
  stream: streamLatency,
  ingest: ingestion,
  concurrent: concurrentSessions,
  fanout: streamFanout,
  page: pageRead,
  bigpage: bigPageRead,
  lines: linesPageRead,
  scheduler: schedulerPass,
  trickle: trickleLatency,
  ui: uiBudgets,
  web: webBudgets,
};

const USAGE =
  `Usage: deno task bench [--quick] [--only=STAGE,...] [--runs=N] [--cpu-prof=DIR] [--out=FILE]

Stages: ${Object.keys(STAGES).join(", ")}
  --quick         smaller sizes: a smoke run of about a minute
  --only          run only these stages
  --runs N        repeat the whole run N times (1-5); report each figure's median and its spread
  --cpu-prof DIR  run each daemon and the ui probe under --cpu-prof, profiles in DIR
  --out FILE      results JSON (default bench/results.json)`;

/** The first of `candidates` that is a file, or null. */
function findProgram(candidates: string[]): string | null {
  for (const candidate of candidates) {
    try {
      if (Deno.statSync(candidate).isFile) return candidate;
    } catch { /* try the next */ }
  }
  return null;
}

async function main(args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      quick: { type: "boolean", default: false },
      only: { type: "string" },
      "cpu-prof": { type: "string" },
      out: { type: "string" },
      runs: { type: "string", default: "1" },
      help: { type: "boolean", default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    return 0;
  }
  const runs = Number(values.runs);
  if (!Number.isInteger(runs) || runs < 1 || runs > 5) {
    console.error(`--runs must be 1 to 5\n${USAGE}`);
    return 2;
  }
  const selected = values.only ? values.only.split(",") : Object.keys(STAGES);
  const unknown = selected.filter((name) => !(name in STAGES));
  if (unknown.length > 0) {
    console.error(`Unknown stage "${unknown.join('", "')}"\n${USAGE}`);
    return 2;
  }
  const out = values.out ??
    fileURLToPath(new URL("../bench/results.json", import.meta.url));
  const cpuProfDir = values["cpu-prof"] ? await Deno.realPath(values["cpu-prof"]) : null;

  const machine = describeMachine();
  const registry = new ProcessRegistry();
  const root = await Deno.makeTempDir({ prefix: "svc-bench-" });
  await Deno.chmod(root, 0o700);
  const startedAt = performance.now();
  const elapsed = () => `${((performance.now() - startedAt) / 1000).toFixed(1)}s`;
  const log = (message: string) => console.error(`[bench ${elapsed()}] ${message}`);

  let cleaned = false;
  const removeRoot = () => {
    try {
      Deno.removeSync(root, { recursive: true });
    } catch { /* already gone */ }
  };
  /** Stops every process (daemons gracefully, so they end their sessions), then removes the root. */
  const cleanup = async (graceMs: number) => {
    if (cleaned) return;
    cleaned = true;
    registry.close();
    await registry.stopAll(graceMs);
    removeRoot();
  };
  const abort = (reason: string, code: number) => {
    log(`${reason}: stopping every process and removing the temporary root`);
    const hardStop = setTimeout(() => {
      registry.killAllNow();
      removeRoot();
      Deno.exit(code);
    }, ABORT_GRACE_MS + 2000);
    cleanup(ABORT_GRACE_MS).finally(() => {
      clearTimeout(hardStop);
      Deno.exit(code);
    });
  };
  const onSignal = () => abort("interrupted", 130);
  Deno.addSignalListener("SIGINT", onSignal);
  Deno.addSignalListener("SIGTERM", onSignal);
  const watchdog = setTimeout(
    () => abort(`the run passed ${(RUN_LIMIT_MS * runs) / 1000} s`, 1),
    RUN_LIMIT_MS * runs,
  );
  Deno.unrefTimer(watchdog);

  // Each run has its own root: stages name their homes, databases and routines.
  const contextFor = (run: number): BenchContext => ({
    sizes: values.quick ? QUICK : FULL,
    quick: values.quick,
    root: runs === 1 ? root : join(root, `run-${run}`),
    registry,
    cpuProfDir,
    cat: findProgram(["/bin/cat", "/usr/bin/cat"]) ?? "cat",
    flock: findProgram(["/usr/bin/flock", "/bin/flock"]),
    log,
  });
  const runFigures: Figure[][] = [];
  const failures: Array<{ run: number; stage: string; error: string }> = [];
  const stageRuns: Array<
    { run: number; stage: string; seconds: number; loadAverageAtStart: number[] }
  > = [];
  try {
    log(`${values.quick ? "quick" : "full"} run ×${runs}; temporary root ${root}`);
    for (let run = 1; run <= runs && !cleaned; run++) {
      const ctx = contextFor(run);
      await Deno.mkdir(ctx.root, { recursive: true, mode: 0o700 });
      const figures: Figure[] = [];
      runFigures.push(figures);
      for (const name of selected) {
        if (cleaned) break;
        await settleDisk();
        const loadAverageAtStart = Deno.loadavg();
        log(`run ${run}: stage ${name} (load average ${loadAverageAtStart.join(" ")})`);
        const stageStarted = performance.now();
        try {
          figures.push(...await STAGES[name](ctx));
        } catch (error) {
          const text = error instanceof Error ? error.stack ?? error.message : String(error);
          log(`stage ${name} failed: ${text}`);
          failures.push({ run, stage: name, error: text });
          await registry.stopAll(5000);
        }
        const seconds = (performance.now() - stageStarted) / 1000;
        stageRuns.push({ run, stage: name, seconds, loadAverageAtStart });
        log(`stage ${name} took ${seconds.toFixed(1)} s`);
      }
    }
  } finally {
    await cleanup(10_000);
    clearTimeout(watchdog);
    Deno.removeSignalListener("SIGINT", onSignal);
    Deno.removeSignalListener("SIGTERM", onSignal);
  }

  const figures = runs === 1 ? runFigures[0] ?? [] : combineRuns(runFigures);
  const table = markdownTable(figures);
  const results = {
    generatedAt: new Date().toISOString(),
    mode: values.quick ? "quick" : "full",
    runs,
    stages: stageRuns,
    durationSeconds: (performance.now() - startedAt) / 1000,
    machine: { ...machine, loadAverageAtEnd: Deno.loadavg() },
    sizes: values.quick ? QUICK : FULL,
    figures,
    failures,
    table,
  };
  await Deno.mkdir(dirname(out), { recursive: true });
  await Deno.writeTextFile(out, JSON.stringify(results, null, 2) + "\n");
  console.log(table);
  const missed = figures.filter((f) => f.met === false).map((f) => f.id);
  console.log(
    `\n${figures.length} figures in ${results.durationSeconds.toFixed(0)} s; targets missed: ${
      missed.length === 0 ? "none" : missed.join(", ")
    }; failed stages: ${failures.length === 0 ? "none" : failures.map((f) => f.stage).join(", ")}`,
  );
  console.log(`Results: ${out}`);
  return failures.length === 0 ? 0 : 1;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
