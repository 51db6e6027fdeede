import { systemClock } from "../../src/clock.ts";
import { EventLog } from "../../src/events/event_log.ts";
import { silentLogger } from "../../src/log.ts";
import { openDatabase } from "../../src/store/db.ts";
import { EventsStore } from "../../src/store/events_store.ts";
import { SessionsStore } from "../../src/store/sessions_store.ts";
import { removeTree, tempHome } from "./home.ts";

/** A real store and event log in a temporary home, for the supervisor's parts. */
export interface SessionLog {
  home: string;
  sessions: SessionsStore;
  events: EventLog;
  /** The stored events, to read what was recorded. */
  stored: EventsStore;
}

/** Runs `fn` against a fresh real SQLite store and event log, then removes them. */
export async function withSessionLog(
  fn: (log: SessionLog) => void | Promise<void>,
): Promise<void> {
  const home = await tempHome();
  const db = openDatabase(`${home}/svc.db`);
  const stored = new EventsStore(db);
  const events = new EventLog(stored, systemClock, silentLogger);
  try {
    await fn({ home, sessions: new SessionsStore(db), events, stored });
  } finally {
    events.shutdown();
    db.close();
    await removeTree(home);
  }
}
