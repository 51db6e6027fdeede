import { tempHome } from "./home.ts";

/** Runs the real git in `cwd`; a failure throws with git's message. */
export async function git(cwd: string, ...args: string[]): Promise<string> {
  const output = await new Deno.Command("git", {
    args,
    cwd,
    env: {
      GIT_AUTHOR_NAME: "Test",
      GIT_AUTHOR_EMAIL: "test@example.invalid",
      GIT_COMMITTER_NAME: "Test",
      GIT_COMMITTER_EMAIL: "test@example.invalid",
    },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  if (!output.success) {
    throw new Error(`git ${args.join(" ")}: ${decoder.decode(output.stderr)}`);
  }
  return decoder.decode(output.stdout);
}

/**
 * A real repository with one commit: README.md, a.txt, src/main.ts
 * (`export {};`). Returns its real path; the caller removes it.
 */
export async function gitRepository(): Promise<string> {
  const repo = await Deno.realPath(await tempHome());
  await git(repo, "init", "-q", "-b", "main");
  await Deno.writeTextFile(`${repo}/README.md`, "# Project\n\nSome text.\n");
  await Deno.writeTextFile(`${repo}/a.txt`, "a\n");
  await Deno.mkdir(`${repo}/src`);
  await Deno.writeTextFile(`${repo}/src/main.ts`, "export {};\n");
  await git(repo, "add", ".");
  await git(repo, "commit", "-q", "-m", "initial");
  return repo;
}
