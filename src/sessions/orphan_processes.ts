/**
 * Start-up recovery's side of process ownership (D7, issue 13): what a
 * previous daemon of this home left running is killed, and nothing else —
 * not a process that merely reuses a recorded id, nor the agents of the
 * home a restored store was copied from (issue 33 item 7).
 */
import type { SessionRow } from "../store/sessions_store.ts";
import { carriesMarkers, processStartTime, signalMarked } from "./process_tree.ts";
import { killProcessGroup } from "./spawner.ts";

/**
 * SIGKILLs the orphans' process groups whose recorded leader is still the
 * process home `home` started, and every process carrying the home's marker
 * of one of them, whichever start (one scan for all).
 */
export function killOrphanProcesses(home: string, orphans: readonly SessionRow[]): void {
  for (const row of orphans) {
    if (row.pgid !== null && ownsRecordedLeader(home, row)) killProcessGroup(row.pgid, "SIGKILL");
  }
  signalMarked(home, new Map(orphans.map((row) => [row.id, null])), "SIGKILL");
}

/** Its recorded pid has the recorded start time and carries this home's marker of the session. */
function ownsRecordedLeader(home: string, row: SessionRow): boolean {
  return row.pid !== null && row.leader_start !== null &&
    processStartTime(row.pid) === row.leader_start && carriesMarkers(row.pid, home, row.id);
}
