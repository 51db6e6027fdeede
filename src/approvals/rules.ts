/**
 * Standing approval rules (D28): the stored rules, added and removed by the
 * owner (`svc.approvals.rules.add` / `.remove`, or an "always" answer) and
 * read by the broker before anyone is asked.
 */
import { resolve } from "node:path";
import { ServiceError, storeUnavailable } from "../errors.ts";
import { type Clock, isoTime } from "../clock.ts";
import { newId } from "../ids.ts";
import type { Logger } from "../log.ts";
import type { ApprovalRule } from "../policy/approval_rules.ts";
import { type ApprovalRulesStore, MAX_APPROVAL_RULES } from "../store/approval_rules_store.ts";

/** A rule as the owner gives it: everything but its id and creation time. */
export type NewApprovalRule = Omit<ApprovalRule, "id" | "createdAt">;

/** The rules, over their store. */
export class ApprovalRules {
  readonly #store: ApprovalRulesStore;
  readonly #clock: Clock;
  readonly #log: Logger | null;
  /** The rules as last read: the broker reads them for every request. */
  #cache: ApprovalRule[] | null = null;

  constructor(store: ApprovalRulesStore, clock: Clock, log: Logger | null = null) {
    this.#store = store;
    this.#clock = clock;
    this.#log = log;
  }

  /** Every rule, oldest first. */
  list(): ApprovalRule[] {
    this.#cache ??= this.#store.list();
    return this.#cache;
  }

  /** Every rule, or none when the store cannot be read (then everyone is asked as usual). */
  forMatching(): readonly ApprovalRule[] {
    try {
      return this.list();
    } catch (error) {
      this.#log?.error("Cannot read the approval rules: requests are decided without them", {
        error,
      });
      return [];
    }
  }

  /** Stores a new rule; 409 `approval_rules_full` beyond MAX_APPROVAL_RULES. */
  add(fields: NewApprovalRule): ApprovalRule {
    const now = this.#clock.now();
    const rule: ApprovalRule = {
      id: newId("apr", now),
      decision: fields.decision,
      ...(fields.sessionId !== undefined ? { sessionId: fields.sessionId } : {}),
      ...(fields.harness !== undefined ? { harness: fields.harness } : {}),
      ...(fields.projectRoot !== undefined ? { projectRoot: resolve(fields.projectRoot) } : {}),
      ...(fields.tool !== undefined ? { tool: fields.tool } : {}),
      ...(fields.command !== undefined ? { command: [...fields.command] } : {}),
      ...(fields.path !== undefined ? { path: fields.path } : {}),
      ...(fields.profile !== undefined ? { profile: fields.profile } : {}),
      createdAt: isoTime(now),
      ...(fields.note !== undefined ? { note: fields.note } : {}),
    };
    try {
      if (this.#store.count() >= MAX_APPROVAL_RULES) {
        throw new ServiceError(
          "approval_rules_full",
          409,
          `There are already ${MAX_APPROVAL_RULES} approval rules: remove some first`,
          { max: MAX_APPROVAL_RULES },
        );
      }
      this.#store.insert(rule);
    } catch (error) {
      if (error instanceof ServiceError) throw error;
      this.#log?.error("Cannot store an approval rule", { error });
      throw storeUnavailable();
    } finally {
      this.#cache = null;
    }
    return rule;
  }

  /**
   * Removes the rules scoped to a session whose worktree is gone (issue 38
   * item 10): those of `sessionId`, and those of its worktree as a project
   * root (an isolated session's "this project" is its worktree). They could
   * never match again, and a new worktree at that path is another session's.
   * Returns how many went; a store that cannot be written is logged, not thrown.
   */
  removeScopedTo(scope: { sessionId: string; projectRoot: string }): number {
    const root = resolve(scope.projectRoot);
    const gone = this.list().filter((rule) =>
      rule.sessionId === scope.sessionId || rule.projectRoot === root
    );
    try {
      for (const rule of gone) this.#store.remove(rule.id);
    } catch (error) {
      this.#log?.error("Cannot remove the approval rules of a removed worktree", { error });
    } finally {
      this.#cache = null;
    }
    return gone.length;
  }

  /** Removes a rule; 404 `approval_rule_not_found` when there is none with that id. */
  remove(id: string): { id: string; removed: true } {
    let removed: boolean;
    try {
      removed = this.#store.remove(id);
    } catch (error) {
      this.#log?.error("Cannot remove an approval rule", { error });
      throw storeUnavailable();
    } finally {
      this.#cache = null;
    }
    if (!removed) {
      throw new ServiceError("approval_rule_not_found", 404, `No approval rule "${id}"`, { id });
    }
    return { id, removed: true };
  }
}
