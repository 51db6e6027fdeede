import { ServiceError } from "../errors.ts";
import { readRange } from "../file_range.ts";
import { type Clock, isoTime } from "../clock.ts";
import { type RunRecord, runRecord, type RunRow, type RunsStore } from "../store/runs_store.ts";

/** A result file larger than this is not served whole (results are a few KiB). */
const MAX_RESULT_BYTES = 1024 * 1024;

/** One delivered result as `svc inbox` lists it (D21). */
export interface InboxEntry {
  runId: string;
  routineId: string;
  status: RunRecord["status"];
  endedAt: string | null;
  path: string;
  readAt: string | null;
  /** The first line of the run's summary, for the list. */
  headline: string | null;
}

/** A result newly marked read: the feed's `inbox.read` notice (D19). */
export interface InboxRead {
  runId: string;
  routineId: string;
  readAt: string;
}

/** The delivered run results (D21): listed newest first, read, marked read. */
export class Inbox {
  readonly #runs: RunsStore;
  readonly #clock: Clock;
  readonly #onRead: (read: InboxRead) => void;

  /** `onRead` hears each result newly marked read (so every open UI can show it read). */
  constructor(runs: RunsStore, clock: Clock, options: { onRead?: (read: InboxRead) => void } = {}) {
    this.#runs = runs;
    this.#clock = clock;
    this.#onRead = options.onRead ?? (() => {});
  }

  list(options: { unread: boolean; limit: number }): InboxEntry[] {
    return this.#runs.delivered(options).map((run) => ({
      runId: run.id,
      routineId: run.routineId,
      status: run.status,
      endedAt: run.endedAt,
      path: run.delivery!.path!,
      readAt: run.delivery!.readAt,
      headline: headline(run),
    }));
  }

  /**
   * Run `runId`'s record and its result file's Markdown; `markRead` records
   * that the owner read it. 404 `run_not_found` / `result_not_found`.
   */
  async result(runId: string, markRead: boolean): Promise<{ run: RunRecord; markdown: string }> {
    const run = this.#runs.get(runId);
    if (!run) {
      throw new ServiceError("run_not_found", 404, `Run "${runId}" does not exist`, { runId });
    }
    const delivery = run.delivery;
    if (!delivery || delivery.status !== "delivered" || delivery.path === null) {
      throw new ServiceError(
        "result_not_found",
        404,
        delivery?.status === "failed"
          ? `Run "${runId}" has no result file: writing it failed (${delivery.error})`
          : `Run "${runId}" has no result file: its routine has no outputTarget`,
        { runId },
      );
    }
    const markdown = await readResult(delivery.path).catch((error) => {
      throw new ServiceError(
        "result_not_found",
        404,
        `Cannot read the result of run "${runId}" at "${delivery.path}": ${
          (error as Error).message
        }`,
        { runId, path: delivery.path },
      );
    });
    if (markRead && delivery.readAt === null) {
      const readAt = isoTime(this.#clock.now());
      this.#runs.update(runId, { delivery: { ...delivery, readAt } });
      this.#onRead({ runId, routineId: run.routineId, readAt });
    }
    return { run: runRecord(this.#runs.get(runId)!), markdown };
  }
}

/**
 * The list's one line of a result: a run that did not succeed says why
 * (issue 27 item 6: its error), else its summary's first line.
 */
function headline(run: RunRow): string | null {
  if (run.status !== "succeeded" && run.error) {
    return `${run.error.code}: ${run.error.message}`.split("\n", 1)[0].slice(0, 200);
  }
  return run.summary?.trim().split("\n", 1)[0].slice(0, 200) || null;
}

async function readResult(path: string): Promise<string> {
  using file = await Deno.open(path, { read: true });
  return new TextDecoder().decode(await readRange(file, 0, MAX_RESULT_BYTES));
}
