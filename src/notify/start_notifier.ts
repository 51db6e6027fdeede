/**
 * The notifier as the daemon runs it (D31): its channels' real sender, its
 * log and focus registry, fed by the daemon-wide feed and reading sessions,
 * pending approvals and results from the daemon's stores.
 */
import type { ApprovalBroker } from "../approvals/broker.ts";
import type { Clock } from "../clock.ts";
import type { Config } from "../config/schema.ts";
import type { DaemonFeed } from "../events/daemon_feed.ts";
import type { EventLog } from "../events/event_log.ts";
import type { Logger } from "../log.ts";
import type { OwnedProcesses } from "../sessions/owned_processes.ts";
import type { EventsStore } from "../store/events_store.ts";
import type { SessionsStore } from "../store/sessions_store.ts";
import { channelSender } from "./channel_sender.ts";
import { Delivery, type LabelledChannel } from "./delivery.ts";
import { FocusRegistry } from "./focus.ts";
import { NotificationLog, type NotificationLogEntry } from "./notification_log.ts";
import { Notifier } from "./notifier.ts";

/** The running notifier's parts the daemon's routes and stop need. */
export interface RunningNotifier {
  readonly focus: FocusRegistry;
  readonly log: NotificationLog;
  channels(): readonly LabelledChannel[];
  test(channels: readonly LabelledChannel[]): Promise<NotificationLogEntry[]>;
  stop(): Promise<void>;
}

/** Starts the notifier of `config.notifications` on `feed`. */
export function startNotifier(
  deps: {
    config: Config;
    clock: Clock;
    log: Logger;
    processes: OwnedProcesses;
    feed: DaemonFeed;
    sessions: SessionsStore;
    events: EventsStore;
    eventLog: EventLog;
    approvals: ApprovalBroker;
  },
): RunningNotifier {
  const focus = new FocusRegistry();
  const log = new NotificationLog();
  const delivery = new Delivery({
    clock: deps.clock,
    send: channelSender({ processes: deps.processes }),
    log,
    logger: deps.log,
  });
  const notifier = new Notifier({
    clock: deps.clock,
    config: deps.config.notifications,
    origin: deps.config.web.origins[0] ?? null,
    stalledAfterMs: deps.config.ui.stalledAfterSeconds * 1000,
    delivery,
    logger: deps.log,
    sources: {
      session: (sessionId) => deps.sessions.get(sessionId),
      pendingApproval: (sessionId, requestId) => {
        const pending = deps.approvals.list(sessionId).find((a) => a.requestId === requestId);
        return pending === undefined
          ? null
          : { tool: pending.tool, detail: pending.command ?? pending.summary };
      },
      finalText: (sessionId) => deps.events.finalText(sessionId),
      appendedSeq: (sessionId) => deps.eventLog.lastAppendedSeq(sessionId),
      inFocus: (sessionId) => focus.has(sessionId),
    },
  });
  deps.feed.listen((kind, data) => notifier.notice(kind, data));
  notifier.start();
  return {
    focus,
    log,
    channels: () => notifier.channels,
    test: (channels) => notifier.test(channels),
    stop: () => notifier.stop(),
  };
}
