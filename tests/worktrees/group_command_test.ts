import assert from "node:assert/strict";
import { OUTPUT_TAIL_BYTES, runGroupCommand } from "../../src/worktrees/group_command.ts";

Deno.test("runGroupCommand() hands each piece of output on and keeps each stream's tail", async () => {
  const seen: string[] = [];
  const result = await runGroupCommand(
    [
      "sh",
      "-c",
      `printf 'out\\n'; printf 'err\\n' >&2; head -c ${
        OUTPUT_TAIL_BYTES + 10
      } /dev/zero | tr '\\0' x; exit 3`,
    ],
    {
      cwd: Deno.cwd(),
      timeoutMs: 60_000,
      onOutput: (stream, text) => seen.push(`${stream}:${text}`),
    },
  );
  assert.equal(result.code, 3);
  assert.equal(result.timedOut, false);
  assert.equal(result.stdout.length, OUTPUT_TAIL_BYTES);
  assert.match(result.stdout, /^x+$/);
  assert.equal(result.stderr, "err\n");
  assert.ok(seen.join("").startsWith("stdout:out\n") || seen.includes("stderr:err\n"));
  assert.equal(
    seen.filter((piece) => piece.startsWith("stdout:")).map((piece) => piece.slice(7)).join("")
      .length,
    OUTPUT_TAIL_BYTES + 14,
  );
});

Deno.test("runGroupCommand() kills the whole group at the timeout", async () => {
  const result = await runGroupCommand(["sh", "-c", "sleep 30 & sleep 30; echo never"], {
    cwd: Deno.cwd(),
    timeoutMs: 200,
  });
  assert.equal(result.timedOut, true);
  assert.equal(result.code, null);
  assert.equal(result.stdout, "");
});

Deno.test("runGroupCommand() says why a program cannot start", async () => {
  const result = await runGroupCommand(["/nonexistent/program"], {
    cwd: Deno.cwd(),
    timeoutMs: 1000,
  });
  assert.equal(result.code, null);
  assert.match(result.error ?? "", /^cannot start: /);
});
