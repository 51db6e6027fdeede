import assert from "node:assert/strict";
import { ConfigError } from "../../src/config/config_error.ts";
import {
  checkContextName,
  contextsPath,
  readContexts,
  writeContexts,
} from "../../src/contexts/contexts_file.ts";

Deno.test("contextsPath() is under XDG_CONFIG_HOME, else ~/.config, else none", () => {
  const env = (vars: Record<string, string>) => (name: string) => vars[name];
  assert.equal(contextsPath(env({ XDG_CONFIG_HOME: "/x", HOME: "/h" })), "/x/svc/contexts.json");
  assert.equal(contextsPath(env({ HOME: "/h" })), "/h/.config/svc/contexts.json");
  assert.equal(contextsPath(env({})), null, "no file: local is the only context");
});

Deno.test("writeContexts() writes 0600 in a 0700 directory; readContexts() reads it back", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/config/svc/contexts.json`;
    assert.deepEqual(await readContexts(path), { current: null, contexts: {} });
    assert.deepEqual(await readContexts(null), { current: null, contexts: {} });
    const file = { current: "box", contexts: { box: { endpoint: "ssh://box" } } };
    await writeContexts(path, file);
    assert.equal((await Deno.stat(path)).mode! & 0o777, 0o600);
    assert.equal((await Deno.stat(`${dir}/config/svc`)).mode! & 0o777, 0o700);
    assert.deepEqual(await readContexts(path), file);
    await Deno.chmod(path, 0o644);
    await writeContexts(path, { current: null, contexts: {} });
    assert.equal((await Deno.stat(path)).mode! & 0o777, 0o600, "a rewrite is 0600 again");
    assert.deepEqual([...Deno.readDirSync(`${dir}/config/svc`)].map((e) => e.name), [
      "contexts.json",
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("readContexts() refuses a file it cannot trust, naming the field", async (t) => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/contexts.json`;
  try {
    const cases: Array<[string, RegExp]> = [
      ["{", /is not JSON/],
      [`{"contexts":{"box":{"endpoint":"ssh://box","extra":1}}}`, /contexts\.box/],
      [`{"contexts":{"box":{"endpoint":"http://box"}}}`, /context "box": .*neither ssh: nor unix:/],
      [`{"contexts":{"-x":{"endpoint":"ssh://box"}}}`, /contexts/],
    ];
    for (const [text, why] of cases) {
      await t.step(text, async () => {
        await Deno.writeTextFile(path, text);
        await assert.rejects(readContexts(path), (error: Error) => {
          assert.ok(error instanceof ConfigError);
          assert.match(error.message, why);
          return true;
        });
      });
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("checkContextName() keeps local for this machine and names to a safe alphabet", () => {
  checkContextName("dev-box.2");
  assert.throws(() => checkContextName("local"), /always this machine's daemon/);
  assert.throws(() => checkContextName("a b"), /not allowed/);
  assert.throws(() => checkContextName("-a"), /not allowed/);
});
