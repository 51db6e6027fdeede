/**
 * The web face with a real agent (issue 34, D30): Claude Code against the
 * fake provider, its daemon on a TCP listener, and a phone-sized Chromium
 * page paired as the owner would pair it. A permission request is allowed
 * from its card and the tool runs; another is denied and never runs; a third
 * is answered Always, which makes svc's own rule for this session, and the
 * same command asked again is allowed by that rule; a turn typed in the
 * session view reaches the agent and its streamed answer shows.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { freePort } from "../helpers/daemon.ts";
import { hasChromium, launchChromium, pairingUrl, PHONE } from "../web/browser/page.ts";
import { type AgentDaemon, startAgentDaemon } from "./agent_daemon.ts";
import { requireAgent, runAgentTests } from "./agents_gate.ts";

type Json = Record<string, unknown>;

const exists = (path: string) => Deno.stat(path).then(() => true, () => false);

const bash = (command: string) => ({
  toolCall: { name: "Bash", arguments: { command, description: "Run it" } },
});

/** Sends a turn through the API (the owner's socket). */
async function sendTurn(d: AgentDaemon, sessionId: string, data: string): Promise<void> {
  const sent = await d.client.post<Json>(`/sessions/${sessionId}/input`, { data });
  assert.equal(sent.status, 200, JSON.stringify(sent.body));
}

/** Answers the card named `Bash: command` on the approvals view with `button`. */
async function answerCard(page: Page, command: string, button: string): Promise<void> {
  const card = page.getByRole("listitem", { name: `Bash: ${command}` });
  await card.getByRole("button", { name: button }).click({ timeout: 60_000 });
  await card.waitFor({ state: "detached" });
}

Deno.test({
  name: "claude on a phone: allow, deny and always from the cards, and a turn typed in the page",
  ignore: !runAgentTests || !hasChromium,
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    requireAgent("claude");
    const port = freePort();
    await using d = await startAgentDaemon("claude", {
      config: { turnTimeoutMinutes: 1, approvals: { timeoutSeconds: 60 } },
      serveArgs: ["--tcp", `127.0.0.1:${port}`],
    });
    const browser = await launchChromium();
    try {
      const page = await browser.newPage({ viewport: PHONE });
      const { url } = await pairingUrl(d.home, "operate");
      await page.goto(url);
      await page.getByRole("heading", { name: "Fleet" }).waitFor();
      await page.goto(`http://127.0.0.1:${port}/#/approvals`);

      // Allow: the card's command runs.
      d.provider.script([bash("touch allowed.txt"), { text: "Allowed, and the file is there." }]);
      const id = await d.launch({ prompt: "make the file", title: "claude on a phone" });
      await answerCard(page, "touch allowed.txt", "Allow");
      const [allowed] = await d.waitForKind(id, "agent.permission.resolved", 1);
      assert.equal(allowed.decision, "allow");
      assert.equal(allowed.by, "owner");
      assert.equal((allowed.device as Json).name, "browser", JSON.stringify(allowed));
      await d.waitForKind(id, "agent.turn", 1);
      assert.ok(await exists(join(d.project, "allowed.txt")), "the allowed command ran");

      // Deny: the command never runs.
      d.provider.script([bash("touch denied.txt"), { text: "Understood, I will not." }]);
      await sendTurn(d, id, "make another file");
      await answerCard(page, "touch denied.txt", "Deny");
      const denied = await d.waitForKind(id, "agent.permission.resolved", 2);
      assert.equal(denied[1].decision, "deny");
      await d.waitForKind(id, "agent.turn", 2);
      assert.equal(await exists(join(d.project, "denied.txt")), false, "the denied command ran");

      // Always: svc's rule for this session answers the same command asked again.
      d.provider.script([
        bash("touch always.txt"),
        bash("touch always.txt"),
        { text: "Touched it twice." },
      ]);
      await sendTurn(d, id, "touch it twice");
      await answerCard(page, "touch always.txt", "Always");
      const always = await d.waitForKind(id, "agent.permission.resolved", 4);
      assert.deepEqual([always[2].decision, always[2].by], ["allow", "owner"]);
      assert.deepEqual([always[3].decision, always[3].by], ["allow", "rule"]);
      const rules = (await d.client.get<{ rules: Json[] }>("/approval-rules")).body.rules;
      const rule = rules.find((r) => r.id === always[3].ruleId);
      assert.ok(rule, JSON.stringify(rules));
      assert.equal(rule.sessionId, id, "the rule is scoped to this session");
      assert.deepEqual(rule.command, ["touch", "always.txt"]);
      await d.waitForKind(id, "agent.turn", 3);
      assert.ok(await exists(join(d.project, "always.txt")));

      // A turn typed in the session view; the streamed answer shows.
      const answer = "The answer streamed from claude to the phone.";
      d.provider.script([{ text: answer }]);
      await page.goto(`http://127.0.0.1:${port}/#/s/${id}`);
      await page.getByText("Touched it twice.").waitFor();
      await page.getByLabel("Message to the agent").fill("what did you do?");
      await page.getByRole("button", { name: "Send" }).click();
      const request = await d.provider.waitForRequest((r) =>
        !r.side && JSON.stringify(r.body).includes("what did you do?")
      );
      assert.equal(request.api, "anthropic");
      await page.getByRole("log", { name: "Transcript" }).getByText(answer).waitFor({
        timeout: 60_000,
      });
      await d.waitForKind(id, "agent.turn", 4);
    } catch (error) {
      // Shown before the daemon's disposal runs: an error there would wrap (and hide) this one.
      console.error(error);
      throw error;
    } finally {
      await browser.close();
    }
  },
});
