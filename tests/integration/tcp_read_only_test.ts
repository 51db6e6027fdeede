/** D23: the TCP listener never executes or changes anything; reads stay open. */
import assert from "node:assert/strict";
import { fixtureHarnesses, freePort, startTestDaemon } from "../helpers/daemon.ts";
import { httpRequest, rawHttp } from "../helpers/http.ts";
import { removeTree, tempHome } from "../helpers/home.ts";
import { systemProber } from "../../src/sessions/harness_probe.ts";

// deno-lint-ignore no-explicit-any
type Json = Record<string, any>;

Deno.test("over TCP every mutating route is 403 forbidden before its body is read (D23)", async () => {
  const port = freePort();
  const project = await Deno.realPath(await tempHome());
  await using t = await startTestDaemon({
    tcp: { hostname: "127.0.0.1", port },
    configJson: { harnesses: fixtureHarnesses() },
    scheduler: false,
  });
  try {
    const local = await t.client.post<Json>("/sessions", {
      projectRoot: project,
      harness: "fixture-stdin",
      prompt: "x",
    });
    assert.equal(local.status, 201);
    const id = local.body.id;
    const tcp = (method: string, path: string, body: string, extra: Json = {}) =>
      rawHttp(
        { hostname: "127.0.0.1", port },
        httpRequest(method, `/api/v1${path}`, {
          host: `127.0.0.1:${port}`,
          headers: { "content-type": "application/json", ...extra },
          body,
        }),
      );
    const launch = JSON.stringify({
      projectRoot: project,
      harness: "fixture",
      prompt: "out pwned",
    });
    const cases: Array<[string, string, string]> = [
      ["POST", "/sessions", launch],
      ["POST", "/sessions", "{not json"], // Refused before the body is parsed.
      ["POST", `/sessions/${id}/input`, JSON.stringify({ data: "hello\n" })],
      ["POST", `/sessions/${id}/kill`, "{}"],
      ["POST", `/sessions/${id}/interrupt`, "{}"],
      ["POST", `/sessions/${id}/close`, "{}"],
      ["POST", "/sessions/ses_unknown/kill", "{}"],
      ["POST", "/shutdown", "{}"],
      ["POST", "/sessions/restricted", "{}"],
    ];
    for (const [method, path, body] of cases) {
      const response = await tcp(method, path, body);
      assert.equal(response.status, 403, `${method} ${path} ${body}`);
      assert.equal((response.body as Json).error.code, "forbidden", path);
    }
    // A text/plain body is not even looked at: still 403, not 415.
    assert.equal(
      (await tcp("POST", "/sessions", "x", { "content-type": "text/plain" })).status,
      403,
    );
    const approve = await tcp(
      "POST",
      "/actions",
      JSON.stringify({
        action: "svc.sessions.approve",
        sessionId: id,
        requestId: "r",
        decision: "allow",
      }),
    );
    assert.equal(approve.status, 403);
    assert.equal((approve.body as Json).error.code, "AUTHORITY_REQUIRED");
    for (
      const action of ["svc.automations.prune", "svc.automations.result", "svc.automations.inbox"]
    ) {
      const response = await tcp("POST", "/actions", JSON.stringify({ action }));
      assert.equal((response.body as Json).error.code, "AUTHORITY_REQUIRED", action);
    }

    // Nothing happened: one session, still running, no input recorded.
    const sessions = (await t.client.get<Json[]>("/sessions")).body;
    assert.deepEqual(sessions.map((s) => [s.id, s.status]), [[id, "running"]]);
    const events = (await t.client.get<Json>(`/sessions/${id}/events?kinds=input`)).body.events;
    assert.deepEqual(events, []);
    // Reads stay open.
    const read = await rawHttp(
      { hostname: "127.0.0.1", port },
      httpRequest("GET", `/api/v1/sessions/${id}`, { host: `127.0.0.1:${port}` }),
    );
    assert.equal(read.status, 200);
    const usage = await rawHttp(
      { hostname: "127.0.0.1", port },
      httpRequest("GET", "/api/v1/usage", { host: `127.0.0.1:${port}` }),
    );
    assert.equal(usage.status, 200);
    // An absolute-form target naming another host is refused.
    const absolute = await rawHttp(
      { hostname: "127.0.0.1", port },
      `GET http://evil.example/api/v1/health HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`,
    );
    assert.equal(absolute.status, 403);
    await t.client.post(`/sessions/${id}/kill`, {});
  } finally {
    await removeTree(project);
  }
});

Deno.test("svc.capabilities.refresh over TCP answers from the last probe and runs nothing (D23, issue 28)", async () => {
  const port = freePort();
  const bin = await tempHome();
  const runs = `${bin}/runs.log`;
  // A built-in's program found on PATH: its `--version` probe appends a line per run.
  await Deno.writeTextFile(`${bin}/claude`, `#!/bin/sh\necho "$@" >> '${runs}'\n`, { mode: 0o755 });
  const runCount = async () =>
    (await Deno.readTextFile(runs).catch(() => "")).split("\n").filter(Boolean).length;
  await using t = await startTestDaemon({
    tcp: { hostname: "127.0.0.1", port },
    prober: systemProber({ PATH: bin }),
    scheduler: false,
  });
  try {
    while ((await t.client.get<Json>("/health")).body.probing) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const atStart = await runCount();
    assert.equal(atStart, 1, "the start-up probe ran the program once");
    const refresh = JSON.stringify({ action: "svc.capabilities.refresh" });
    for (let i = 0; i < 20; i++) {
      const response = await rawHttp(
        { hostname: "127.0.0.1", port },
        httpRequest("POST", "/api/v1/actions", {
          host: `127.0.0.1:${port}`,
          headers: { "content-type": "application/json" },
          body: refresh,
        }),
      );
      assert.equal(response.status, 200);
      const records = (response.body as Json).event.payload.capabilities as Json[];
      const claude = records.find((record) => record.id === "svc.harness.claude");
      assert.equal(claude?.status, "enabled", "the last probe's records");
    }
    assert.equal(await runCount(), atStart, "a TCP refresh started the owner's programs");
    const local = await t.client.post<Json>("/actions", { action: "svc.capabilities.refresh" });
    assert.equal(local.status, 200);
    assert.equal(await runCount(), atStart + 1, "the owner's socket re-probes");
  } finally {
    await removeTree(bin);
  }
});
