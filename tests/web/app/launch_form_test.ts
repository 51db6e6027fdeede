import assert from "node:assert/strict";
import { pendingSession } from "../../../src/ui/model.ts";
import {
  harnessText,
  launchRefusal,
  projectRootChoices,
} from "../../../src/web/app/launch_form.ts";

Deno.test("launchRefusal() lets only an operate device launch, and says why to the others (D30)", () => {
  assert.equal(launchRefusal(["operate"]), null);
  assert.match(
    launchRefusal(["approve"])!,
    /needs the operate scope: this device may only read and answer requests/,
  );
  assert.match(launchRefusal(["read"])!, /may only read \(.*svc devices pair --scope operate/);
  assert.match(launchRefusal(["read", "approve"])!, /may only read and answer requests/);
  assert.match(launchRefusal([])!, /this device has no scope/);
});

Deno.test("harnessText() shows the label, with the id when they differ", () => {
  assert.equal(harnessText({ id: "agent", label: "agent" }), "agent");
  assert.equal(harnessText({ id: "claude", label: "Claude Code" }), "Claude Code (claude)");
});

Deno.test("projectRootChoices() lists the sessions' roots, latest first, once each, an isolated one's repository", () => {
  const at = (id: string, created: string, root: string, repository?: string) => ({
    ...pendingSession(id, created),
    project_root: root,
    worktree: repository ? { path: `${repository}/.wt/${id}`, branch: id, repository } : null,
  });
  const sessions = new Map([
    ["a", at("a", "2026-11-01T00:00:00Z", "/old")],
    ["b", at("b", "2026-11-03T00:00:00Z", "/new")],
    ["c", at("c", "2026-11-02T00:00:00Z", "/repo/.wt/c", "/repo")],
    ["d", at("d", "2026-10-01T00:00:00Z", "/new")],
    ["e", at("e", "2026-10-02T00:00:00Z", "")],
  ]);
  assert.deepEqual(projectRootChoices({ sessions }), ["/new", "/repo", "/old"]);
});
