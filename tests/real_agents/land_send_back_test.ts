/**
 * The land queue's send-back with the real claude CLI against the fake
 * provider (D34): two isolated sessions edit the same line of a.txt; the
 * queue lands the first, the second conflicts and is sent back, its agent
 * gets a turn naming a.txt (the provider's request shows it), commits and
 * rebases (scripted Bash tool calls), and the retry lands both changes.
 * Run with `deno test -A tests/real_agents/land_send_back_test.ts`.
 */
import assert from "node:assert/strict";
import { withAgentAndRepo } from "./agent_daemon.ts";
import { runAgentTests } from "./agents_gate.ts";
import { conversationTexts } from "./fake_provider.ts";
import { git } from "../helpers/git.ts";

// deno-lint-ignore no-explicit-any
type AnyJson = Record<string, any>;

const options = { ignore: !runAgentTests, sanitizeOps: false, sanitizeResources: false };

/** The agent's git identity: the CLI's offline HOME has no git config. */
const IDENTITY = "export GIT_AUTHOR_NAME=Agent GIT_AUTHOR_EMAIL=agent@example.invalid " +
  "GIT_COMMITTER_NAME=Agent GIT_COMMITTER_EMAIL=agent@example.invalid GIT_EDITOR=true; ";

Deno.test(
  {
    name: "claude: a conflicting item is sent back, rebased by its agent and landed (D34)",
    ...options,
  },
  withAgentAndRepo("claude", async (d, repo) => {
    /** An ended isolated claude session whose one tool call wrote `line` into a.txt. */
    const edit = async (line: string): Promise<string> => {
      d.provider.script([
        {
          toolCall: {
            name: "Bash",
            arguments: { command: `printf '${line}\\n' > a.txt`, description: "Edit a.txt" },
          },
        },
        { text: `a.txt says ${line}` },
      ]);
      const id = await d.launch({
        projectRoot: repo,
        prompt: `write ${line} into a.txt`,
        isolation: "worktree",
        approvals: "allow",
        oneShot: true,
      });
      const ended = await d.waitForEnd(id);
      assert.equal(ended.status, "completed", JSON.stringify(ended));
      d.provider.clearScript();
      return id;
    };
    const first = await edit("first");
    const second = await edit("second");

    // The send-back turn: commit, rebase onto main (it conflicts), keep both lines, continue.
    d.provider.script([
      {
        toolCall: {
          name: "Bash",
          arguments: {
            command: IDENTITY + "git add -A && git commit -qm 'second' && " +
              "{ git rebase main || true; } && printf 'first\\nsecond\\n' > a.txt && " +
              "git add a.txt && git rebase --continue",
            description: "Rebase onto main and resolve a.txt",
          },
        },
      },
      { text: "rebased onto main, a.txt keeps both lines" },
    ]);
    const before = d.provider.requests.length;
    const queued = await d.client.post<AnyJson>("/land-queue", {
      items: [first, second],
      mode: "squash",
      sendBack: true,
    });
    assert.equal(queued.status, 202, JSON.stringify(queued.body));

    let items = await queueUntil(d.client, (all) => all[1].state === "sent_back");
    assert.equal(items[0].state, "landed", JSON.stringify(items));
    assert.equal(items[1].lastError.code, "land_conflict", JSON.stringify(items[1]));
    assert.deepEqual(items[1].lastError.files, ["a.txt"]);
    const turn = await d.provider.waitForRequest(
      (request) => request.index >= before && !request.side,
      60_000,
    );
    const said = conversationTexts(turn).at(-1) ?? "";
    assert.match(said, /svc could not land your work/, said);
    assert.match(said, /^- a\.txt$/m, said);

    items = await queueUntil(d.client, (all) => all[1].state === "landed");
    assert.equal(items[1].attempts, 1);
    assert.equal(await Deno.readTextFile(`${repo}/a.txt`), "first\nsecond\n");
    assert.equal(await git(repo, "status", "--porcelain"), "");
    const subjects = (await git(repo, "log", "--format=%s")).trim().split("\n");
    assert.equal(subjects.length, 3, subjects.join("\n"));
    assert.deepEqual(
      await d.client.get<AnyJson>(`/sessions/${second}`).then((r) => r.body.status),
      "completed",
      "the conversation was closed after its turn",
    );
  }),
);

/** Polls `GET /land-queue` until `done` holds of its items (bounded: 120 s). */
async function queueUntil(
  client: { get<T>(path: string): Promise<{ body: T }> },
  done: (items: AnyJson[]) => boolean,
): Promise<AnyJson[]> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const items = (await client.get<AnyJson>("/land-queue")).body.items as AnyJson[];
    if (done(items)) return items;
    if (Date.now() > deadline) {
      throw new Error(`The queue never got there: ${JSON.stringify(items)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
