/** Each agent's request shape mapped to what approval rules match on (D28, issue 25). */
import assert from "node:assert/strict";
import { acpTarget, claudeTarget, codexTarget } from "../../src/agents/permission_target.ts";

Deno.test("claude: Bash is a shell command, Write/Edit an edit of file_path, Read a read", () => {
  assert.deepEqual(claudeTarget("Bash", { command: "npm test", description: "x" }), {
    kind: "shell",
    command: "npm test",
    paths: [],
  });
  assert.deepEqual(claudeTarget("Write", { file_path: "/p/a.txt", content: "x" }), {
    kind: "edit",
    command: null,
    paths: ["/p/a.txt"],
  });
  assert.deepEqual(claudeTarget("Edit", { file_path: "a.txt" }).paths, ["a.txt"]);
  assert.deepEqual(claudeTarget("NotebookEdit", { notebook_path: "n.ipynb" }).paths, ["n.ipynb"]);
  assert.deepEqual(claudeTarget("Grep", { pattern: "x", path: "src" }), {
    kind: "read",
    command: null,
    paths: ["src"],
  });
  assert.equal(claudeTarget("WebFetch", { url: "https://x" }).kind, "fetch");
  assert.deepEqual(claudeTarget("mcp__x__y", {}), { kind: "other", command: null, paths: [] });
  // A Bash request without a command is a shell request with an empty one (never allowed by rule).
  assert.deepEqual(claudeTarget("Bash", {}).command, "");
});

Deno.test("codex: the command string as sent (bash -lc kept for the matcher), file changes' paths", () => {
  assert.deepEqual(
    codexTarget("item/commandExecution/requestApproval", {
      command: "/bin/bash -lc 'touch created.txt'",
    }, []),
    { kind: "shell", command: "/bin/bash -lc 'touch created.txt'", paths: [] },
  );
  assert.equal(
    codexTarget("item/commandExecution/requestApproval", { command: ["ls", "a b"] }, []).command,
    "ls 'a b'",
  );
  assert.deepEqual(
    codexTarget("item/fileChange/requestApproval", { itemId: "c1" }, ["/p/a.txt"]),
    { kind: "edit", command: null, paths: ["/p/a.txt"] },
  );
  assert.deepEqual(
    codexTarget("item/fileChange/requestApproval", { grantRoot: "/" }, ["/p/a.txt"]).paths,
    ["/p/a.txt", "/"],
    "a root it asks write access to counts as a path",
  );
  assert.equal(codexTarget("item/permissions/requestApproval", {}, []).kind, "other");
});

Deno.test("ACP: execute's command from rawInput (opencode) or the title (gemini); edits' locations", () => {
  assert.deepEqual(
    acpTarget({ kind: "execute", title: "touch created.txt", locations: [] }, {
      command: "touch created.txt",
    }),
    { kind: "shell", command: "touch created.txt", paths: [] },
  );
  assert.deepEqual(
    acpTarget({ kind: "execute", title: "touch created.txt", locations: [] }, undefined),
    { kind: "shell", command: "touch created.txt", paths: [] },
  );
  assert.deepEqual(
    acpTarget({
      kind: "edit",
      title: "a.txt",
      locations: [{ path: "/p/a.txt" }],
      content: [{ type: "diff", path: "/p/b.txt", oldText: null, newText: "x" }],
    }, { filePath: "/p/a.txt" }),
    { kind: "edit", command: null, paths: ["/p/a.txt", "/p/b.txt"] },
  );
  assert.equal(acpTarget({ kind: "fetch" }, { url: "https://x" }).kind, "fetch");
  assert.equal(acpTarget({ kind: "think" }, {}).kind, "other");
});
