/**
 * The actions of a view of several hosts (D32): each call carries a merged
 * id (`HOST/ID`, hosts.ts) and goes to that host's `UiActions` with the
 * daemon's own id, so an approval is answered where it was asked. A launch
 * goes to the host of the harness chosen (hosts.ts lists each host's own).
 */
import { hostedId } from "./hosts.ts";
import { routeId } from "./hosts_store.ts";
import type { Actions, LandMode, LaunchForm, Outcome } from "./actions.ts";
import type { RuleScope } from "../policy/approval_rules.ts";

/** One host's actions by its context name. */
export interface HostActions {
  readonly name: string;
  readonly actions: Actions;
}

/** `hosts`' actions as one: a single host's as they are, several routed by id. */
export function hostsActions(hosts: readonly HostActions[]): Actions {
  return hosts.length === 1 ? hosts[0].actions : new RoutedActions(hosts);
}

class RoutedActions implements Actions {
  readonly #hosts: readonly HostActions[];

  constructor(hosts: readonly HostActions[]) {
    this.#hosts = hosts;
  }

  /** The actions of the host `id` names, and the daemon's own id. */
  #on(id: string): { actions: Actions; id: string } {
    const { host, id: own } = routeId(this.#hosts, id);
    return { actions: host.actions, id: own };
  }

  answer(
    request: { sessionId: string; requestId: string },
    decision: "allow" | "deny",
    scope?: RuleScope,
  ): Promise<Outcome> {
    const { actions, id } = this.#on(request.sessionId);
    return actions.answer({ sessionId: id, requestId: request.requestId }, decision, scope);
  }

  send(sessionId: string, text: string) {
    const { actions, id } = this.#on(sessionId);
    return actions.send(id, text);
  }

  interrupt(sessionId: string) {
    const { actions, id } = this.#on(sessionId);
    return actions.interrupt(id);
  }

  close(sessionId: string) {
    const { actions, id } = this.#on(sessionId);
    return actions.close(id);
  }

  kill(sessionId: string) {
    const { actions, id } = this.#on(sessionId);
    return actions.kill(id);
  }

  resume(sessionId: string) {
    const { actions, id } = this.#on(sessionId);
    return actions.resume(id);
  }

  resumeAndSend(sessionId: string, text: string) {
    const { actions, id } = this.#on(sessionId);
    return actions.resumeAndSend(id, text);
  }

  runRoutine(routineId: string) {
    const { actions, id } = this.#on(routineId);
    return actions.runRoutine(id);
  }

  routine(routineId: string) {
    const { actions, id } = this.#on(routineId);
    return actions.routine(id);
  }

  setRoutineStatus(routineId: string, status: "ACTIVE" | "PAUSED") {
    const { actions, id } = this.#on(routineId);
    return actions.setRoutineStatus(id, status);
  }

  markRead(runId: string) {
    const { actions, id } = this.#on(runId);
    return actions.markRead(id);
  }

  result(runId: string) {
    const { actions, id } = this.#on(runId);
    return actions.result(id);
  }

  runs(routineId: string) {
    const { actions, id } = this.#on(routineId);
    return actions.runs(id);
  }

  diff(sessionId: string) {
    const { actions, id } = this.#on(sessionId);
    return actions.diff(id);
  }

  diffPage(sessionId: string, offset: number, length?: number) {
    const { actions, id } = this.#on(sessionId);
    return actions.diffPage(id, offset, length);
  }

  landCheck(sessionId: string) {
    const { actions, id } = this.#on(sessionId);
    return actions.landCheck(id);
  }

  land(sessionId: string, mode: LandMode) {
    const { actions, id } = this.#on(sessionId);
    return actions.land(id, mode);
  }

  discard(sessionId: string, force: boolean) {
    const { actions, id } = this.#on(sessionId);
    return actions.discard(id, force);
  }

  cancelLand(itemId: string) {
    const { actions, id } = this.#on(itemId);
    return actions.cancelLand(id);
  }

  /** A launch on the chosen harness's host; the new session by its merged id (the UI opens it). */
  async launch(form: LaunchForm): Promise<Outcome> {
    const { host, id: harness } = routeId(this.#hosts, form.harness);
    const outcome = await host.actions.launch({ ...form, harness });
    if (outcome.sessionId === undefined) return outcome;
    return {
      ...outcome,
      message: `${outcome.message} on ${host.name}`,
      sessionId: hostedId(host.name, outcome.sessionId),
    };
  }
}
