/** Issue 38 item 2: `o` shows a tool call's whole output in the session view, and folds it. */
import assert from "node:assert/strict";
import { fleetLists } from "./fixtures.ts";
import { KEY, renderApp, settle } from "./render_app.tsx";

const record = (kind: string, payload: unknown) => ({
  kind,
  payload_json: JSON.stringify(payload),
});

Deno.test("svc ui: o shows the tool output nearest the bottom whole, and folds it (issue 38 item 2)", async () => {
  const app = renderApp(fleetLists());
  await app.press(KEY.enter);
  await app.press("o");
  assert.match(app.frame(), /No tool output above the bottom of the screen/);
  app.focus.append([
    record("agent.tool", {
      callId: "c1",
      name: "Bash",
      status: "started",
      input: '{"command":"seq 3"}',
    }),
    record("agent.tool", { callId: "c1", status: "completed", output: "line 1\nline 2\nline 3" }),
    record("agent.message", { role: "assistant", text: "Done." }),
  ]);
  await settle();
  assert.match(app.frame(), /→ line 1 \(\+2 lines\) · o shows all/);
  assert.doesNotMatch(app.frame(), /line 3/);
  await app.press("o");
  assert.match(
    app.frame(),
    /→ line 1 \(\+2 lines\)[^\n]*\n +line 1\n +line 2\n +line 3\nagent › Done\./,
  );
  await app.press("o");
  assert.doesNotMatch(app.frame(), /line 3/);
  app.unmount();
});
