/**
 * Worktree setup copies (D20, D27) against the real git: a symbolic link the
 * repository commits never carries a copy out of the worktree, nor reads one
 * from outside the owner's checkout (issue 33 item 11).
 */
import assert from "node:assert/strict";
import { runSetup } from "../../src/worktrees/setup.ts";
import { git, gitRepository } from "../helpers/git.ts";
import { removeTree, tempHome } from "../helpers/home.ts";

/** A repository whose commit holds `links` (name → target), a worktree of it, and a directory outside both. */
async function rig(links: Record<string, string>) {
  const repo = await gitRepository();
  const outside = await Deno.realPath(await tempHome());
  const home = await Deno.realPath(await tempHome());
  for (const [name, target] of Object.entries(links)) {
    await Deno.symlink(target.replace("OUTSIDE", outside), `${repo}/${name}`);
  }
  await git(repo, "add", ".");
  await git(repo, "commit", "-q", "-m", "links");
  const worktree = `${home}/worktree`;
  await git(repo, "worktree", "add", "-q", "-b", "svc/session/ses_1", worktree, "HEAD");
  const steps: Record<string, unknown>[] = [];
  return {
    repo,
    outside,
    worktree,
    steps,
    copy: (paths: string[]) =>
      runSetup({ copy: paths }, { repository: repo, worktree }, (step) => {
        steps.push(step);
        return Promise.resolve();
      }),
    async [Symbol.asyncDispose]() {
      await removeTree(repo);
      await removeTree(outside);
      await removeTree(home);
    },
  };
}

async function entries(dir: string): Promise<string[]> {
  return (await Array.fromAsync(Deno.readDir(dir))).map((entry) => entry.name).sort();
}

Deno.test("runSetup() never writes through a committed link to a directory outside the worktree (issue 33 item 11)", async () => {
  await using r = await rig({ conf: "OUTSIDE" });
  // The owner's checkout has a real directory where the commit has the link (a local change).
  await Deno.remove(`${r.repo}/conf`);
  await Deno.mkdir(`${r.repo}/conf`);
  await Deno.writeTextFile(`${r.repo}/conf/.env`, "SECRET=1\n");
  await assert.rejects(r.copy(["conf/.env"]), (error) => {
    const e = error as { code: string; message: string; details: Record<string, unknown> };
    assert.equal(e.code, "worktree_setup_failed");
    assert.match(
      e.message,
      /Cannot copy "conf\/\.env": "conf" in the worktree is a link out of it/,
    );
    assert.deepEqual(e.details, { step: "copy", path: "conf/.env" });
    return true;
  });
  assert.deepEqual(await entries(r.outside), []);
  assert.equal(r.steps[0].copied, false);
});

Deno.test("runSetup() replaces a committed link at the copy's own path instead of writing through it (issue 33 item 11)", async () => {
  await using r = await rig({ ".env": "OUTSIDE/bashrc" });
  await Deno.writeTextFile(`${r.outside}/bashrc`, "original\n");
  await Deno.remove(`${r.repo}/.env`);
  await Deno.writeTextFile(`${r.repo}/.env`, "SECRET=1\n");
  await r.copy([".env"]);
  assert.equal(await Deno.readTextFile(`${r.outside}/bashrc`), "original\n");
  assert.ok((await Deno.lstat(`${r.worktree}/.env`)).isFile);
  assert.equal(await Deno.readTextFile(`${r.worktree}/.env`), "SECRET=1\n");
});

Deno.test("runSetup() refuses a copy whose source lies outside the owner's checkout through a link (issue 33 item 11)", async () => {
  await using r = await rig({ shared: "OUTSIDE" });
  await Deno.writeTextFile(`${r.outside}/credentials`, "key\n");
  await assert.rejects(
    r.copy(["shared/credentials"]),
    /Cannot copy "shared\/credentials": "shared" in the checkout is a link out of it/,
  );
  assert.equal(r.steps[0].copied, false);
});

Deno.test("runSetup() follows a committed link that stays inside, and copies links in a tree as links (D27)", async () => {
  await using r = await rig({ "src-link": "src" });
  await Deno.writeTextFile(`${r.repo}/src/.env`, "A=1\n");
  await Deno.mkdir(`${r.repo}/config`);
  await Deno.writeTextFile(`${r.repo}/config/local.env`, "B=2\n");
  await Deno.symlink(r.outside, `${r.repo}/config/elsewhere`);
  await r.copy(["src-link/.env", "config"]);
  assert.equal(await Deno.readTextFile(`${r.worktree}/src/.env`), "A=1\n");
  assert.equal(await Deno.readTextFile(`${r.worktree}/config/local.env`), "B=2\n");
  assert.equal(await Deno.readLink(`${r.worktree}/config/elsewhere`), r.outside);
  assert.deepEqual(r.steps.map((step) => step.copied), [true, true]);
});
