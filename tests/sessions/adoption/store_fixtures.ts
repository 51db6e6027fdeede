/**
 * The agents' own files as the pinned CLIs wrote them against the fake
 * provider (tests/fixtures/agent_stores, trimmed), placed under a temp home
 * for a project directory of the test's.
 */
import { dirname, join } from "node:path";

const FIXTURES = new URL("../../fixtures/agent_stores/", import.meta.url).pathname;
/** The project directory the recordings name, replaced by the test's. */
const RECORDED_PROJECT = "/home/user/project";

/** The recording `name` with the test's `project` in place of the recorded one. */
export async function recording(name: string, project: string): Promise<string> {
  return (await Deno.readTextFile(join(FIXTURES, name))).replaceAll(RECORDED_PROJECT, project);
}

/** Writes `text` at `path`, making its directories. */
export async function place(path: string, text: string): Promise<void> {
  await Deno.mkdir(dirname(path), { recursive: true });
  await Deno.writeTextFile(path, text);
}

/** Sets a file's modification time (ms since the epoch): the stores list by it. */
export async function touch(path: string, ms: number): Promise<void> {
  await Deno.utime(path, ms / 1000, ms / 1000);
}
