/**
 * Running svc from source (issue 38 item 15): `deno task svc …` and `deno
 * task start` fetch what they need without drawing Deno's download progress
 * (over `svc ui`, or on every command's stderr).
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const config = JSON.parse(await Deno.readTextFile(`${ROOT}deno.json`)) as {
  tasks: Record<string, string>;
};

/** Whether the npm registry answers (the cold-cache test needs it). */
const ONLINE = await fetch("https://registry.npmjs.org/zod", {
  method: "HEAD",
  signal: AbortSignal.timeout(3000),
}).then((response) => response.ok, () => false);

Deno.test("the svc and start tasks run deno --quiet: no download progress once svc runs", () => {
  for (const task of ["svc", "start"]) {
    assert.match(config.tasks[task], /^deno run --quiet /, `task ${task}`);
  }
});

Deno.test({
  name: "deno task svc from an empty Deno cache, and after: no download progress once svc runs",
  ignore: !ONLINE,
  async fn() {
    const denoDir = await Deno.makeTempDir();
    try {
      const run = async (args: string[]) => {
        const output = await new Deno.Command(Deno.execPath(), {
          args,
          cwd: ROOT,
          env: { DENO_DIR: denoDir, NO_COLOR: "1" },
          stdout: "piped",
          stderr: "piped",
        }).output();
        const text = new TextDecoder().decode(output.stderr) +
          new TextDecoder().decode(output.stdout);
        assert.equal(output.code, 0, text);
        return text;
      };
      const cold = await run(["task", "svc", "--version"]);
      // `deno task` itself fetches every npm package of deno.json first (and lists them, unless
      // run as `deno task -q`); once svc runs — and could take the screen — nothing is drawn.
      const started = cold.indexOf("Task svc ");
      assert.ok(started >= 0, cold);
      assert.doesNotMatch(cold.slice(started), /Download/);
      assert.match(cold, /^svc \S+/m);
      // Every later run: Deno looks up the registry entries of the packages svc loads (it keeps
      // none of them after a `deno task` install); that lookup prints nothing either.
      assert.doesNotMatch(await run(["task", "svc", "--version"]), /Download/);
    } finally {
      await Deno.remove(denoDir, { recursive: true });
    }
  },
});
