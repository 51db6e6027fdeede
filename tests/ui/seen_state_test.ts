import assert from "node:assert/strict";
import { parseSeenState, seenStateText, unseenAfterRestart } from "../../src/ui/seen_state.ts";
import { iso, session } from "./fixtures.ts";

Deno.test("seenStateText() and parseSeenState() keep the unseen and the time; junk is nothing", () => {
  const text = seenStateText(new Set(["ses_a"]), "2026-11-27T11:00:00.000Z");
  assert.deepEqual(parseSeenState(text), {
    savedAt: "2026-11-27T11:00:00.000Z",
    unseen: ["ses_a"],
  });
  for (
    const junk of [
      null,
      "",
      "{",
      '{"savedAt":"never","unseen":[]}',
      '{"savedAt":"2026-11-27T11:00:00.000Z","unseen":[1]}',
    ]
  ) {
    assert.equal(parseSeenState(junk), null, String(junk));
  }
});

Deno.test("unseenAfterRestart() keeps who needed you and adds who failed or finished since (issue 38 item 12)", () => {
  const saved = { savedAt: iso(600_000), unseen: ["ses_FAILEDBEFORE", "ses_NOWWORKING"] };
  const sessions = [
    // Unseen at the last quit, still failed.
    session({ id: "ses_FAILEDBEFORE", status: "failed", activity: null, updated_at: iso(900_000) }),
    // Unseen at the last quit, but working again: nothing to look at now.
    session({ id: "ses_NOWWORKING", activity: "working", updated_at: iso(60_000) }),
    // Failed and finished a turn while no UI watched.
    session({ id: "ses_FAILEDSINCE", status: "failed", activity: null, updated_at: iso(60_000) }),
    session({ id: "ses_IDLESINCE", activity: "idle", turns: 2, updated_at: iso(60_000) }),
    // Seen before the last quit, quiet since.
    session({ id: "ses_IDLEBEFORE", activity: "idle", turns: 2, updated_at: iso(900_000) }),
    session({ id: "ses_DONESINCE", status: "completed", activity: null, updated_at: iso(60_000) }),
  ];
  assert.deepEqual(
    [...unseenAfterRestart(sessions, saved)].sort(),
    ["ses_FAILEDBEFORE", "ses_FAILEDSINCE", "ses_IDLESINCE"],
  );
});
