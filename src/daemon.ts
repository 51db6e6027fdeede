import type { DatabaseSync } from "node:sqlite";
import { createHandler, type Handler } from "./api/app.ts";
import { IdleRelease } from "./idle_release.ts";
import { trimNativeHeap } from "./native_heap.ts";
import type { Peer } from "./policy/peer.ts";
import { buildRoutes } from "./api/routes.ts";
import { type Clock, settlesWithin, systemClock } from "./clock.ts";
import { ConfigError } from "./config/config_error.ts";
import { type HomePaths, homePaths, prepareHome } from "./config/home.ts";
import { loadConfig } from "./config/load.ts";
import type { Config } from "./config/schema.ts";
import { createLogger, fileSink, stderrSink } from "./log.ts";
import { CapabilityRegistry } from "./sessions/capabilities.ts";
import { checkRoutine } from "./automations/routine_checks.ts";
import { buildRegistry, type HarnessSpec } from "./sessions/harnesses.ts";
import { probeHarness, type ProgramProber, systemProber } from "./sessions/harness_probe.ts";
import { openStore } from "./store/store_identity.ts";
import { SessionsStore, worktreeOf } from "./store/sessions_store.ts";
import { EventsStore } from "./store/events_store.ts";
import { EventLog } from "./events/event_log.ts";
import { LiveEvents } from "./events/live_events.ts";
import { type LaunchSpec, Supervisor } from "./sessions/supervisor.ts";
import { Parking } from "./sessions/parking.ts";
import { Worktrees } from "./worktrees/worktrees.ts";
import { launchIsolated } from "./worktrees/isolated_launch.ts";
import { WorktreeReview } from "./worktrees/review.ts";
import { LandQueue } from "./worktrees/land_queue.ts";
import { configuredVerify } from "./worktrees/land_verify.ts";
import { LandQueueStore } from "./store/land_queue_store.ts";
import { appendToSession } from "./events/session_append.ts";
import { sendTurnAndClose } from "./sessions/send_back.ts";
import { configuredSetup } from "./worktrees/setup.ts";
import { runOutcome } from "./automations/run_outcome.ts";
import { deliverResult } from "./automations/delivery.ts";
import { Inbox } from "./automations/inbox.ts";
import { ResponseBudget } from "./api/response_budget.ts";
import { MAX_PAGE_BYTES } from "./events/page.ts";
import { resolveSvcVersion } from "./version.ts";
import { ADAPTERS } from "./agents/adapters.ts";
import type { ConversationTimeouts } from "./agents/conversation.ts";
import { ApprovalBroker } from "./approvals/broker.ts";
import { ProgressNotices } from "./events/progress_notices.ts";
import { ApprovalRules } from "./approvals/rules.ts";
import { ApprovalRulesStore } from "./store/approval_rules_store.ts";
import { DaemonFeed } from "./events/daemon_feed.ts";
import { commandNotifier, notify, type NotifyEvent } from "./notify/notify_command.ts";
import { startNotifier } from "./notify/start_notifier.ts";
import { denoSpawner, type Spawner } from "./sessions/spawner.ts";
import { OwnedProcesses } from "./sessions/owned_processes.ts";
import { Launcher } from "./sessions/launcher.ts";
import { Adoption } from "./sessions/adoption/adopt.ts";
import { type AgentHomes, agentHomesFromEnv, Discovery } from "./sessions/adoption/discovery.ts";
import { RoutinesStore } from "./store/routines_store.ts";
import { RunsStore } from "./store/runs_store.ts";
import { Runner } from "./automations/runner.ts";
import { Scheduler } from "./automations/scheduler.ts";
import { RoutineService } from "./automations/routines.ts";
import type { Listener } from "./transport/listener.ts";
import { DevicesStore } from "./store/devices_store.ts";
import { Devices } from "./web/devices.ts";
import { embeddedApp } from "./web/embedded_app.ts";
import { webGate } from "./web/web_gate.ts";
import { formatTcpAddress, listenTcp, type TcpAddress } from "./transport/tcp_loopback.ts";
import {
  alreadyRunningMessage,
  type LocalEndpoint,
  localEndpoint,
} from "./transport/local_endpoint.ts";

/** How to start a daemon; everything but `home` has a production default. */
export interface DaemonOptions {
  home: string;
  tcp?: TcpAddress | null;
  /** `--project-root` values; replace the config file's list when given (D3). */
  projectRoots?: string[];
  clock?: Clock;
  prober?: ProgramProber;
  spawner?: Spawner;
  /** The host time zone for `timezone: "local"` routines (default: the system's). */
  hostZone?: () => string;
  /** `$CODEX_HOME` for the legacy import (default `$CODEX_HOME`, else `~/.codex`). */
  codexHome?: string;
  /** Set false to not start the scheduler loop (tests drive `tick` themselves). */
  scheduler?: boolean;
  /** Also log to stderr (the foreground `svc serve` does; tests do not). */
  logToStderr?: boolean;
  /** A number in [0, 1) (default Math.random): the jitter of a parked session's timer (D33). */
  random?: () => number;
  /** Where the agents keep their own sessions (D33; default: from the environment). */
  agentHomes?: AgentHomes;
}

/** A running daemon. */
export interface Daemon {
  readonly instanceId: string;
  readonly paths: HomePaths;
  readonly config: Config;
  readonly handler: Handler;
  readonly listeners: readonly Listener[];
  readonly supervisor: Supervisor;
  /** The event log (tests look at its waiting readers). */
  readonly events: EventLog;
  readonly scheduler: Scheduler;
  readonly runner: Runner;
  /** Resolves when the daemon has fully stopped. */
  readonly stopped: Promise<void>;
  /** Graceful stop: stop accepting, end live sessions, close the store, remove the socket. */
  stop(): Promise<void>;
}

/**
 * Version probes of built-in harnesses give up after this long (then
 * `degraded`). Measured on 2 cores: gemini 1.5 s (3.5 s when it relaunches),
 * opencode 1.6 s warm and 3.4 s cold; four at once during start-up take longer.
 */
const PROBE_TIMEOUT_MS = 15_000;

/** A graceful stop waits this long for open connections, then exits anyway (issue 13). */
const STOP_DEADLINE_MS = 10_000;

/**
 * ...and this long for live sessions to end and be recorded: SIGTERM, SIGKILL
 * after KILL_GRACE_MS (5 s), 2 s to drain their pipes, then their last commits.
 */
const SESSIONS_STOP_DEADLINE_MS = 15_000;

/** Bytes of large event pages held for sending at once (issue 13; docs/api.md §10). */
const RESPONSE_BUDGET_BYTES = 64 * 1024 * 1024;
/**
 * Idle this long (no request, no live session), the daemon gives back what it
 * can: SQLite's page cache, then the C heap's free pages (issue 26,
 * docs/benchmarks.md).
 */
const IDLE_RELEASE_MS = 30_000;

/** Starts a daemon on `options.home` (D1, D2). Throws `ConfigError` for exit-2 problems. */
export async function startDaemon(options: DaemonOptions): Promise<Daemon> {
  const clock = options.clock ?? systemClock;
  const paths = homePaths(options.home);
  prepareHome(paths);
  const config = loadConfig(paths.config);
  if (options.projectRoots && options.projectRoots.length > 0) {
    config.projectRoots = options.projectRoots;
  }

  const local = await localEndpoint(paths);
  if (options.tcp && Deno.build.os === "windows") {
    throw new ConfigError("--tcp is not available on Windows: use the named pipe");
  }
  const lock = await acquireHomeLock(paths, local);
  const resources: Array<() => void | Promise<void>> = [() => lock.close()];
  const release = async () => {
    for (const close of resources.splice(0).reverse()) await close();
  };
  try {
    await local.prepare();
    const logFile = fileSink(paths.logFile);
    resources.push(() => logFile.close());
    const log = createLogger(
      options.logToStderr ? [logFile.sink, stderrSink] : [logFile.sink],
      () => clock.now(),
    );
    const store = openStore(paths);
    const db: DatabaseSync = store.db;
    resources.push(() => db.close());
    const sessions = new SessionsStore(db);
    const eventsStore = new EventsStore(db);
    const feed = new DaemonFeed();
    // D25: the feed says which sessions' logs grew (throttled), so a fleet view sees a stall.
    const progress = new ProgressNotices({
      clock,
      publish: (data) => feed.publish("session.progress", data),
    });
    const eventLog = new EventLog(eventsStore, clock, log, {
      committed: (lastSeqs) => progress.committed(lastSeqs),
    });
    const liveEvents = new LiveEvents(clock);
    resources.push(() => eventLog.shutdown());
    resources.push(() => progress.stop());

    // Probes, git and notification commands: each ends with the daemon (issue 28 item 15).
    const processes = new OwnedProcesses();
    resources.push(() => processes.close(systemClock, 0).then(() => {}));
    const harnesses = buildRegistry(config.harnesses);
    const prober = options.prober ?? systemProber(undefined, processes);
    const capabilities = new CapabilityRegistry({
      find: () => probeHarnesses(harnesses, prober, false),
      verify: () => probeHarnesses(harnesses, prober, true),
    });
    // Listening waits for the program look-up only; version probes finish in the background.
    capabilities.refresh().catch((error) => log.error("Probing harnesses failed", { error }));
    // From a checkout, `svcVersion` is git's name for it; looked up beside the program look-up.
    await Promise.all([capabilities.found(), resolveSvcVersion()]);

    const notifier = commandNotifier(log, { processes });
    const approvalRulesStore = new ApprovalRulesStore(db);
    const approvalRules = new ApprovalRules(approvalRulesStore, clock, log);
    const approvals = new ApprovalBroker({
      clock,
      rules: () => approvalRules.forMatching(),
      addRule: (rule) => approvalRules.add(rule),
      session: (sessionId) => {
        const row = sessions.get(sessionId);
        return row === null ? null : {
          harness: row.harness,
          projectRoot: row.project_root,
          cwd: row.cwd,
          repositoryRoot: worktreeOf(row)?.repository ?? null,
        };
      },
      onRuleError: (error) =>
        log.error("Checking the approval rules failed: the request is decided without them", {
          error,
        }),
      timeoutMs: () => config.approvals.timeoutSeconds * 1000,
      onPending: (approval) => {
        // The tool's name only: its summary quotes the command, which may hold a secret.
        log.info("Approval asked", {
          sessionId: approval.sessionId,
          requestId: approval.requestId,
          tool: approval.tool,
        });
        feed.publish("approval.requested", {
          sessionId: approval.sessionId,
          requestId: approval.requestId,
          tool: approval.tool,
        });
        void notify(config.notify, notifier, "approval.requested", {
          SVC_SESSION_ID: approval.sessionId,
          SVC_REQUEST_ID: approval.requestId,
          SVC_TOOL: approval.tool,
          SVC_SUMMARY: approval.summary,
        });
      },
      onResolved: (approval, decision) => {
        const resolved = {
          sessionId: approval.sessionId,
          requestId: approval.requestId,
          decision: decision.decision,
          by: decision.by,
          ...(decision.device === undefined ? {} : { device: decision.device }),
        };
        log.info("Approval answered", resolved);
        feed.publish("approval.resolved", resolved);
      },
    });
    const notifications = startNotifier({
      config,
      clock,
      log,
      processes,
      feed,
      sessions,
      events: eventsStore,
      eventLog,
      approvals,
    });
    const worktrees = new Worktrees({
      root: paths.worktrees,
      sessions,
      clock,
      log,
      processes,
      removed: (sessionId, record) =>
        approvalRules.removeScopedTo({ sessionId, projectRoot: record.path }),
    });
    const launcher = new Launcher({
      home: Deno.realPathSync(paths.root),
      harnesses: () => harnesses,
      capabilities,
      projectRoots: () => config.projectRoots,
      inspectWorktree: (sessionId, record) => worktrees.inspect(sessionId, record),
    });
    const supervisor: Supervisor = new Supervisor({
      home: Deno.realPathSync(paths.root),
      launcher,
      sessions,
      events: eventLog,
      live: liveEvents,
      spawner: options.spawner ?? denoSpawner,
      clock,
      log,
      maxLiveSessions: config.maxLiveSessions,
      artifactsDir: config.rawArtifacts ? paths.artifacts : null,
      adapters: ADAPTERS,
      timeouts: () => conversationTimeouts(config),
      publish: (kind, data) => {
        feed.publish(kind, data);
        if (kind === "session.updated") parking.updated(String(data.sessionId), data.status);
      },
      decide: (sessionId, policy, request, signal) =>
        approvals.decide(sessionId, policy, request, signal),
      checkRules: (sessionId, request) => approvals.checkRules(sessionId, request),
      finalize: (row) => worktrees.finalize(row),
      park: (row, parked) => parking.park(row, parked),
    });
    const parking: Parking = new Parking({
      sessions,
      resume: (sessionId) => supervisor.resume(sessionId),
      input: (sessionId, text) => supervisor.input(sessionId, text),
      close: (sessionId) => supervisor.close(sessionId),
      record: (sessionId, kind, payload) =>
        appendToSession(eventLog, sessions, { sessionId, kind, payload }),
      publish: (kind, data) => feed.publish(kind, data),
      autoResume: () => config.autoResume,
      random: options.random ?? Math.random,
      clock,
      log,
    });
    resources.push(() => parking.stop());
    const orphans = supervisor.recoverOrphans();
    if (orphans.count > 0) {
      log.warn("Sessions left running by a previous daemon are now orphaned", {
        orphaned: orphans.count,
      });
    }
    orphans.recorded.catch((error) => log.error("Recording orphaned sessions failed", { error }));
    parking.start(); // D33: parks whose time passed while the daemon was down fire now, once.
    worktrees.recover().then(
      (count) => count > 0 && log.warn("Worktrees left by a crash were removed", { count }),
      (error) => log.error("Recovering worktrees failed", { error }),
    );

    // D33: sessions started outside svc, found in the agents' own stores and resumed natively.
    const discovery = new Discovery({
      homes: options.agentHomes ?? agentHomesFromEnv(),
      harnesses: () => harnesses,
      capabilities,
      spawner: options.spawner ?? denoSpawner,
      projectRoots: () => config.projectRoots,
      defaultCwd: Deno.realPathSync(paths.root),
    });
    const adoption = new Adoption({
      discovery,
      sessions,
      events: eventLog,
      supervisor,
      clock,
      log,
      projectRoots: () => config.projectRoots,
      defaultApprovals: () => config.approvals.interactive,
      publish: (kind, data) => feed.publish(kind, data),
    });

    const instanceId = crypto.randomUUID();
    const hostZone = options.hostZone ?? (() => Temporal.Now.timeZoneId());
    const sessionDeps = {
      sessions,
      supervisor,
      launcher,
      defaultApprovals: () => config.approvals.interactive,
      worktrees,
      parking,
      worktreeSetup: (cwd: string) => configuredSetup(config.worktreeSetup, cwd),
      clock,
      hostZone,
    };
    const routinesStore = new RoutinesStore(db);
    const runsStore = new RunsStore(db);
    const review = new WorktreeReview({
      sessions,
      runs: runsStore,
      worktrees,
      clock,
      root: paths.worktrees,
      processes,
      verifyFor: (repository) => configuredVerify(config.projects, repository),
      record: (sessionId, kind, payload) =>
        appendToSession(eventLog, sessions, { sessionId, kind, payload }),
      publish: (kind, data) => feed.publish(kind, data),
    });
    // D34: the durable land queue; a send-back resumes the agent for one turn (D26).
    const landQueue = new LandQueue({
      store: new LandQueueStore(db),
      lander: review,
      sendBack: (sessionId, turn) =>
        sendTurnAndClose(
          { supervisor, sessions, clock },
          sessionId,
          { turn, timeoutMs: config.turnTimeoutMinutes * 60_000 },
        ),
      sessionExists: (sessionId) => sessions.get(sessionId) !== null,
      publish: (kind, data) => feed.publish(kind, data),
      clock,
      log,
    });
    const runner = new Runner({
      runs: runsStore,
      clock,
      log,
      deniedPermissions: (sessionId) => eventsStore.deniedPermissions(sessionId),
      outcome: (sessionId) => runOutcome(sessions, eventsStore, sessionId),
      deliver: async (run, routine) =>
        deliverResult(
          run,
          routine,
          paths.inbox,
          run.sessionId && run.worktree && run.worktree.removedAt === null
            ? await review.stat(run.sessionId).catch(() => null)
            : null,
        ),
      publish: (kind, data) => {
        feed.publish(kind, data);
        if (kind !== "run.ended") return;
        void notify(config.notify, notifier, data.status as NotifyEvent, {
          SVC_RUN_ID: String(data.runId),
          SVC_ROUTINE_ID: String(data.routineId),
          SVC_STATUS: String(data.status),
          SVC_RESULT_PATH: String(data.resultPath ?? ""),
          // Issue 27 item 7: a "succeeded" run whose tools were denied says so.
          SVC_PERMISSION_DENIALS: String(data.permissionDenials ?? 0),
          SVC_DENIED_TOOLS: [...new Set(data.deniedTools as string[] ?? [])].join(","),
        });
        worktrees.retain(String(data.routineId), config.worktrees.keep).catch((error) =>
          log.error("Removing old worktrees failed", { routineId: data.routineId, error })
        );
      },
      kill: (sessionId) => {
        try {
          supervisor.kill(sessionId, "SIGTERM");
        } catch { /* already ended */ }
      },
      nextStart: (sessionId) => parking.nextStart(sessionId),
      launch: async (routine, runId, cwd) => {
        const definition = routine.definition;
        const spec = await launcher.checkLaunch({
          projectRoot: cwd,
          harness: definition.runtime,
          prompt: definition.prompt,
          model: definition.model,
          title: definition.name,
          familiarId: definition.familiarId,
        });
        const runSpec: LaunchSpec = {
          ...spec,
          origin: "automation",
          oneShot: true,
          approvals: definition.approvals ?? config.approvals.unattended,
          routineId: routine.id,
          runId,
          ...(definition.autoResume && { autoResume: definition.autoResume }),
        };
        const launched = definition.isolation === "worktree"
          ? await launchIsolated(
            { worktrees, supervisor, clock },
            runSpec,
            definition.worktreeSetup ?? configuredSetup(config.worktreeSetup, runSpec.cwd),
          )
          : await supervisor.launch(runSpec);
        return { sessionId: launched.row.id, ended: launched.ended };
      },
    });
    const scheduler = new Scheduler({
      db,
      routines: routinesStore,
      runs: runsStore,
      runner,
      clock,
      log,
      instanceId,
      hostZone,
    });
    const recovered = scheduler.recover();
    if (recovered.length > 0) {
      log.warn("Runs of a previous daemon closed as daemon_restarted", { runs: recovered.length });
    }
    // D33: runs left parked complete when their session next ends (it may already be resuming).
    for (const run of runsStore.parked()) {
      const routine = routinesStore.get(run.routineId);
      const session = run.sessionId === null ? null : sessions.get(run.sessionId);
      if (routine === null || session === null) continue;
      runner.reattach(run, routine, supervisor.ended(session.id) ?? Promise.resolve(session));
    }
    const routineService = new RoutineService({
      db,
      routines: routinesStore,
      runs: runsStore,
      runner,
      clock,
      instanceId,
      hostZone,
      legacySources: {
        codexHome: options.codexHome ?? defaultCodexHome(),
        svcImportDir: paths.importDir,
      },
      check: (definition) => checkRoutine(definition, { knownRuntimes: [...harnesses.keys()] }),
    });
    const startedAtMs = clock.now();
    const stopping = new AbortController();
    let stopped: Promise<void> | null = null;
    let resolveStopped!: () => void;
    const finished = new Promise<void>((resolve) => resolveStopped = resolve);
    const listeners: Listener[] = [];
    const budget = new ResponseBudget(RESPONSE_BUDGET_BYTES, MAX_PAGE_BYTES);
    const devices = new Devices({ store: new DevicesStore(db), clock, log });

    const routes = buildRoutes({
      system: {
        instanceId,
        startedAtMs,
        clock,
        endpoint: local.endpoint,
        tcp: options.tcp ? formatTcpAddress(options.tcp) : null,
        capabilitiesJson: () => capabilities.json(),
        probing: () => capabilities.probing,
        liveSessions: () => supervisor.liveCount(),
        parked: () => sessions.parkedSummary(),
        storeState: () => store.state() === "lost" ? "lost" : eventLog.degraded ? "degraded" : "ok",
        requestShutdown: () => setTimeout(() => daemon.stop(), 0),
      },
      sessions: sessionDeps,
      adoption: { discovery, adoption },
      actions: {
        routines: routineService,
        scheduler,
        capabilities,
        approvals,
        approvalRules,
        approvalLog: approvalRulesStore,
        worktrees,
        inbox: new Inbox(runsStore, clock, {
          onRead: (read) => feed.publish("inbox.read", { ...read }),
        }),
        storeLost: () => store.state() === "lost",
        changed: ({ action, routineIds }) =>
          feed.publish("automations.changed", { action, routineIds }),
      },
      events: {
        sessions,
        events: eventsStore,
        log: eventLog,
        stopping: stopping.signal,
        budget,
      },
      streams: {
        sessions,
        events: eventsStore,
        log: eventLog,
        live: liveEvents,
        feed,
        focus: notifications.focus,
        maxStreams: () => config.maxStreams,
        stopping: stopping.signal,
      },
      artifacts: {
        sessions,
        rawArtifacts: () => config.rawArtifacts,
        artifactsDir: paths.artifacts,
      },
      worktrees: { review, budget },
      landQueue: { queue: landQueue },
      notifications,
      devices: {
        devices,
        webOrigins: () => ({
          listener: options.tcp ? `http://${formatTcpAddress(options.tcp)}` : null,
          origins: config.web.origins,
        }),
      },
    });
    const handler = createHandler(routes, {
      log,
      storeLost: () => store.state() === "lost",
    });

    const idleRelease = new IdleRelease(systemClock, {
      idleMs: IDLE_RELEASE_MS,
      busy: () => supervisor.liveCount() > 0,
      release: () => {
        db.exec("PRAGMA shrink_memory");
        trimNativeHeap();
      },
    });
    const served: Handler = Object.assign((req: Request, peer: Peer) => {
      idleRelease.touch();
      return handler(req, peer);
    }, { beforeBody: handler.beforeBody });
    const instanceHeader = { "svc-instance": instanceId };
    listeners.push(await local.listen(served, instanceHeader, log));
    if (options.tcp) {
      try {
        const gated = webGate(served, { devices, assets: embeddedApp(), log });
        listeners.push(listenTcp(options.tcp, gated, instanceHeader, log, config.web));
      } catch (error) {
        for (const listener of listeners) await listener.shutdown();
        throw new ConfigError(
          `Cannot listen on --tcp ${options.tcp.hostname}:${options.tcp.port}: ${
            (error as Error).message
          }`,
        );
      }
    }
    if (options.scheduler !== false) scheduler.start();
    landQueue.start().catch((error) => log.error("Starting the land queue failed", { error }));
    idleRelease.run(
      stopping.signal,
      (error) => log.warn("Giving memory back when idle failed", { error: String(error) }),
    );
    log.info("svc daemon started", { pid: Deno.pid, instanceId, endpoint: local.address });

    const daemon: Daemon = {
      instanceId,
      paths,
      config,
      handler,
      listeners,
      supervisor,
      events: eventLog,
      scheduler,
      runner,
      stopped: finished,
      stop: () => {
        stopped ??= (async () => {
          log.info("svc daemon stopping");
          stopping.abort();
          supervisor.stopLaunches();
          // Before the verify commands are killed, so the item being landed is left for restart.
          const landQueueStopped = landQueue.stop();
          // A version probe still running is of no use now: it ends before anything else.
          processes.drain();
          const closing = listeners.map((listener) => listener.shutdown());
          await scheduler.stop();
          runner.stop();
          await landQueueStopped;
          await notifications.stop();
          // A store that cannot take a session's last events (a full disk) would hold this
          // forever: past the deadline they are left as a kill -9 leaves them (never served,
          // so never acknowledged), and start-up recovery ends those sessions.
          const sessionsEnded = await settlesWithin(
            systemClock,
            supervisor.shutdown().then(() => runner.settled()),
            SESSIONS_STOP_DEADLINE_MS,
          );
          if (!sessionsEnded) {
            log.warn("Sessions not recorded ended at the stop deadline are left for recovery", {
              deadlineMs: SESSIONS_STOP_DEADLINE_MS,
            });
          }
          // Issue 13: a client holding a request open (an unfinished body) must not keep the
          // daemon alive with its socket gone: past the deadline the rest is cut at exit.
          // Issue 28 item 15: git and notification commands (those the ended sessions started
          // too) get the same deadline, then are killed and reaped.
          const [connectionsClosed, processesEnded] = await Promise.all([
            settlesWithin(systemClock, Promise.all(closing), STOP_DEADLINE_MS),
            processes.close(systemClock, STOP_DEADLINE_MS),
          ]);
          if (!connectionsClosed) {
            log.warn("Connections still open at the stop deadline are cut", {
              deadlineMs: STOP_DEADLINE_MS,
            });
          }
          if (!processesEnded) {
            log.warn("Processes still running at the stop deadline were killed", {
              deadlineMs: STOP_DEADLINE_MS,
            });
          }
          log.info("svc daemon stopped");
          await release();
          resolveStopped();
        })();
        return stopped;
      },
    };
    return daemon;
  } catch (error) {
    await release();
    throw error;
  }
}

async function probeHarnesses(
  harnesses: Map<string, HarnessSpec>,
  prober: ProgramProber,
  versions: boolean,
) {
  return await Promise.all(
    [...harnesses.values()].map(async (spec) => ({
      id: spec.id,
      label: spec.label,
      status: (await probeHarness(spec, prober, { timeoutMs: PROBE_TIMEOUT_MS, versions }))
        .status,
    })),
  );
}

/** A conversation's timeouts from the config (D16); the graces are fixed. */
function conversationTimeouts(config: Config): ConversationTimeouts {
  return {
    turnMs: config.turnTimeoutMinutes * 60_000,
    idleMs: config.idleTimeoutMinutes * 60_000,
    interruptGraceMs: INTERRUPT_GRACE_MS,
    closeGraceMs: CLOSE_GRACE_MS,
  };
}

/** An agent gets this long to end a turn after an interrupt, and to exit after its input closes. */
const INTERRUPT_GRACE_MS = 15_000;
const CLOSE_GRACE_MS = 10_000;

/**
 * One daemon per home: an exclusive lock on `svc.lock` (released by the
 * kernel even on kill -9) closes the probe → unlink → bind race between two
 * daemons starting together (deno-notes).
 */
async function acquireHomeLock(paths: HomePaths, local: LocalEndpoint): Promise<Deno.FsFile> {
  const file = await Deno.open(paths.lock, { read: true, write: true, create: true, mode: 0o600 });
  if (await file.tryLock(true)) return file;
  file.close();
  throw new ConfigError(await alreadyRunningMessage(local.target, paths));
}

function defaultCodexHome(): string {
  const fromEnv = Deno.env.get("CODEX_HOME");
  if (fromEnv) return fromEnv;
  const userHome = Deno.env.get(Deno.build.os === "windows" ? "USERPROFILE" : "HOME") ?? ".";
  return `${userHome}/.codex`;
}
