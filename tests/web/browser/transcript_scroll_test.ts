/**
 * The web session view's transcript follows live at its bottom and holds
 * still when scrolled back (svc ui's rule, D25, D30): real Chromium against
 * a real daemon, the scripted agent answering turns sent through the API.
 */
import assert from "node:assert/strict";
import { launchAgent, waitForKind } from "../../helpers/scripted_agent.ts";
import { DESKTOP, hasChromium, startRig } from "./page.ts";

Deno.test({
  name:
    "web session view: scrolled back, the transcript holds still as lines arrive; G follows again",
  ignore: !hasChromium,
  sanitizeResources: false,
  sanitizeOps: false,
  fn: async () => {
    await using rig = await startRig();
    const project = await rig.project();
    const id = await launchAgent(rig.t, project, { prompt: "turn 0" });
    await waitForKind(rig.t, id, "agent.message", 2);
    // Enough turns for the transcript to scroll (each: the turn and its echo).
    const turns = 30;
    for (let turn = 1; turn <= turns; turn++) {
      const sent = await rig.t.client.post(`/sessions/${id}/input`, { data: `turn ${turn}` });
      assert.ok(sent.ok, JSON.stringify(sent.body));
      await waitForKind(rig.t, id, "agent.message", 2 * (turn + 1));
    }
    const page = await rig.page(DESKTOP);
    await rig.pair(page, "operate");
    await page.goto(`${rig.origin}/#/s/${id}`);
    const transcript = page.locator("#transcript");
    await transcript.getByText(`echo: turn ${turns}`).waitFor();
    const position = () =>
      transcript.evaluate((element) => {
        // The tests are not checked against the DOM lib: the fields read, by shape.
        const box = element as unknown as Record<
          "scrollTop" | "scrollHeight" | "clientHeight",
          number
        >;
        return {
          top: box.scrollTop,
          fromBottom: box.scrollHeight - box.scrollTop - box.clientHeight,
        };
      });
    /** Polls the transcript's position until `holds` (5 s at most; the page's CSP refuses eval). */
    const until = async (holds: (at: { top: number; fromBottom: number }) => boolean) => {
      const deadline = Date.now() + 5000;
      for (let at = await position(); !holds(at); at = await position()) {
        assert.ok(Date.now() < deadline, `the transcript stayed at ${JSON.stringify(at)}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    const atBottom = (at: { fromBottom: number }) => at.fromBottom <= 12; // its padding: 8 px
    await until(atBottom); // it opens at the bottom

    // Scrolled back with svc ui's key, a new turn's lines arrive and the view stays where it was.
    await page.keyboard.press("g");
    await until((at) => at.top === 0);
    await rig.t.client.post(`/sessions/${id}/input`, { data: "while scrolled back" });
    await transcript.getByText("echo: while scrolled back").waitFor();
    assert.equal((await position()).top, 0, "scrolled back, it holds still");

    // G goes to the bottom, and from there it follows live again.
    await page.keyboard.press("G");
    await until(atBottom);
    await rig.t.client.post(`/sessions/${id}/input`, { data: "at the bottom" });
    await transcript.getByText("echo: at the bottom").waitFor();
    await until(atBottom);
  },
});
