/** Input redaction carries over between `input` calls, as output redaction does (issue 13). */
import assert from "node:assert/strict";
import { allEvents, fixtureHarnesses, startTestDaemon, waitForEnd } from "../helpers/daemon.ts";
import { removeTree, tempHome } from "../helpers/home.ts";

Deno.test("a secret split across two input calls is redacted whole", async () => {
  const project = await Deno.realPath(await tempHome());
  await using t = await startTestDaemon({ configJson: { harnesses: fixtureHarnesses() } });
  try {
    const launched = await t.client.post<{ id: string }>("/sessions", {
      projectRoot: project,
      harness: "fixture-stdin",
      prompt: "x",
    });
    const id = launched.body.id;
    const secret = "ghp_" + "a".repeat(36);
    const send = (data: string) => t.client.post(`/sessions/${id}/input`, { data });
    assert.equal((await send("token " + secret.slice(0, 20))).status, 200);
    assert.equal((await send(secret.slice(20) + " end\n")).status, 200);
    assert.equal((await send("a partial line")).status, 200);
    await send("\nquit\n");
    await waitForEnd(t.client, id);
    const inputs = (await allEvents(t.client, id)).filter((e) => e.kind === "input")
      .map((e) => e.payload.data as string);
    const recorded = inputs.join("");
    assert.ok(!recorded.includes(secret.slice(0, 20)), recorded);
    assert.ok(!recorded.includes(secret.slice(20)), recorded);
    assert.match(recorded, /^token \[REDACTED[^\]]*\] end\na partial line\nquit\n$/);
    // The child got the bytes as sent: only the record is redacted.
    const output = (await allEvents(t.client, id)).filter((e) => e.kind === "output")
      .map((e) => e.payload.data as string).join("");
    assert.match(output, /got: token \[REDACTED/);
  } finally {
    await removeTree(project);
  }
});

Deno.test("a supplied title is redacted like the default one (issue 13)", async () => {
  const project = await Deno.realPath(await tempHome());
  await using t = await startTestDaemon({ configJson: { harnesses: fixtureHarnesses() } });
  try {
    const secret = "ghp_" + "b".repeat(36);
    const launched = await t.client.post<{ id: string; title: string }>("/sessions", {
      projectRoot: project,
      harness: "fixture",
      prompt: "exit 0",
      title: `deploy with ${secret}`,
    });
    assert.equal(launched.status, 201);
    assert.ok(!launched.body.title.includes(secret), launched.body.title);
    assert.match(launched.body.title, /^deploy with \[REDACTED/);
    await waitForEnd(t.client, launched.body.id);
  } finally {
    await removeTree(project);
  }
});
