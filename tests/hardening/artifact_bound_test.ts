/** A raw artifact response is at most 4 MiB after JSON encoding, paged by offset (issue 13). */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { fitJson } from "../../src/api/artifacts.ts";
import { startTestDaemon } from "../helpers/daemon.ts";
import { removeTree, tempHome } from "../helpers/home.ts";

// deno-lint-ignore no-explicit-any
type Json = Record<string, any>;

Deno.test("fitJson() keeps whole characters and fits the budget", () => {
  const bytes = new TextEncoder().encode("ab€\u0001");
  assert.deepEqual(fitJson(bytes, 100), { data: "ab€\u0001", used: 6 });
  for (let budget = 2; budget < 13; budget++) {
    const { data, used } = fitJson(bytes, budget);
    assert.ok(new TextEncoder().encode(JSON.stringify(data)).length <= budget, `budget ${budget}`);
    assert.equal(new TextEncoder().encode(data).length, used, "whole characters only");
    assert.ok("ab€\u0001".startsWith(data));
  }
  assert.equal(fitJson(new TextEncoder().encode("€€"), 4).data, ""); // never half of a €
});

Deno.test("2 MiB of control characters come back in pages under 4 MiB that rebuild the file", async () => {
  const project = await Deno.realPath(await tempHome());
  await using t = await startTestDaemon({ configJson: { rawArtifacts: true } });
  try {
    // An artifact as a session leaves it (the file the supervisor writes), of the worst bytes.
    const id = "ses_01ARTIFACTBOUNDTEST0000000";
    const store = new DatabaseSync(`${t.home}/svc.db`);
    store.prepare(
      `INSERT INTO sessions (id, project_root, cwd, harness, title, status, origin, created_at, updated_at)
       VALUES (?, '/p', '/p', 'x', 't', 'completed', 'api', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')`,
    ).run(id);
    store.close();
    const content = new Uint8Array(2 * 1024 * 1024).fill(1);
    content.set(new TextEncoder().encode("end"), content.length - 3);
    await Deno.mkdir(`${t.home}/artifacts/${id}`, { recursive: true });
    await Deno.writeFile(`${t.home}/artifacts/${id}/output`, content);

    let offset = 0;
    let rebuilt = "";
    for (let pages = 0; offset !== null; pages++) {
      assert.ok(pages < 10);
      const response = await t.client.get<Json>(
        `/sessions/${id}/artifacts/output?raw=1&offset=${offset}`,
      );
      assert.equal(response.status, 200);
      const encoded = new TextEncoder().encode(JSON.stringify(response.body)).length;
      assert.ok(encoded <= 4 * 1024 * 1024, `${encoded} bytes`);
      rebuilt += response.body.artifact.data;
      offset = response.body.artifact.nextOffset;
    }
    assert.equal(rebuilt, new TextDecoder().decode(content));
  } finally {
    await removeTree(project);
  }
});
