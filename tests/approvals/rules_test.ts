import assert from "node:assert/strict";
import { ApprovalRules } from "../../src/approvals/rules.ts";
import { ApprovalRulesStore } from "../../src/store/approval_rules_store.ts";
import { openDatabase } from "../../src/store/db.ts";
import { removeTree, tempHome } from "../helpers/home.ts";
import { FakeClock } from "../fakes/clock.ts";

Deno.test("ApprovalRules.removeScopedTo() removes the rules of a session and of its worktree only (issue 38 item 10)", async () => {
  const dir = await tempHome();
  const db = openDatabase(`${dir}/svc.db`);
  try {
    const rules = new ApprovalRules(new ApprovalRulesStore(db), new FakeClock(0));
    rules.add({ decision: "allow", tool: "Bash", sessionId: "ses_gone" });
    rules.add({ decision: "deny", tool: "Bash", projectRoot: "/w/ses_gone" });
    const kept = [
      rules.add({ decision: "allow", tool: "Bash", sessionId: "ses_other" }),
      rules.add({ decision: "allow", tool: "Bash", projectRoot: "/w" }),
      rules.add({ decision: "allow", tool: "Bash" }),
    ];
    assert.equal(rules.list().length, 5);
    assert.equal(rules.removeScopedTo({ sessionId: "ses_gone", projectRoot: "/w/ses_gone/" }), 2);
    assert.deepEqual(rules.list().map((rule) => rule.id), kept.map((rule) => rule.id));
  } finally {
    db.close();
    await removeTree(dir);
  }
});
