/** Codex's permissions profile, read and granted (issue 33 item 5); the adapter test covers more. */
import assert from "node:assert/strict";
import { codexGrant, codexProfile } from "../../src/agents/codex_permissions.ts";

Deno.test("codexProfile() reads nothing from a missing or malformed profile", () => {
  const none = { network: false, read: [], write: [] };
  assert.deepEqual(codexProfile(undefined), none);
  assert.deepEqual(codexProfile({ network: true, fileSystem: { write: "/", entries: [1] } }), none);
});

Deno.test("codexGrant() grants nothing the shown profile does not name", () => {
  const requested = { network: { enabled: true }, fileSystem: { read: ["/a"], write: ["/b"] } };
  assert.deepEqual(codexGrant(requested, { network: false, read: [], write: ["/b"] }), {
    fileSystem: { read: [], write: ["/b"] },
  });
  assert.deepEqual(
    codexGrant({ network: { enabled: true }, fileSystem: null }, {
      network: true,
      read: [],
      write: [],
    }),
    {
      network: { enabled: true },
    },
  );
});
