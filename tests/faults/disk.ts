/**
 * Store faults for the fault suites: a small tmpfs to fill (a full disk) and
 * `chattr +i` (a read-only store under an open database). Both need root;
 * `canMount` and `canChattr` say whether this machine allows them.
 */

/** Runs a command quietly; true when it succeeded. */
export function run(command: string, args: string[]): boolean {
  try {
    return new Deno.Command(command, { args, stdout: "null", stderr: "null" }).outputSync()
      .success;
  } catch {
    return false;
  }
}

/** Mounts a tmpfs of `size` at `dir` (root only). */
export function mountTmpfs(dir: string, size: string): boolean {
  return run("mount", ["-t", "tmpfs", "-o", `size=${size},mode=0700`, "tmpfs", dir]);
}

/** Unmounts `dir` (lazily when busy). */
export function unmount(dir: string): void {
  run("umount", [dir]) || run("umount", ["-l", dir]);
}

/** Whether a tmpfs can be mounted here (probed once). */
export const canMount = (() => {
  const dir = Deno.makeTempDirSync({ prefix: "svc-probe-" });
  const ok = mountTmpfs(dir, "64k");
  if (ok) unmount(dir);
  Deno.removeSync(dir, { recursive: true });
  if (!ok) console.error("fault tests: cannot mount a tmpfs here (needs root): skipped");
  return ok;
})();

/** Whether `chattr +i` works and is enforced on open files here (probed once). */
export const canChattr = (() => {
  const dir = Deno.makeTempDirSync({ prefix: "svc-probe-" });
  const path = `${dir}/f`;
  const file = Deno.openSync(path, { write: true, create: true });
  let ok = run("chattr", ["+i", path]);
  if (ok) {
    try {
      file.writeSync(new Uint8Array([1]));
      ok = false; // Writes through an open descriptor still work: not enforced here.
    } catch {
      // Enforced, as on ext4: the daemon's open store becomes read-only.
    }
    run("chattr", ["-i", path]);
  }
  file.close();
  Deno.removeSync(dir, { recursive: true });
  if (!ok) console.error("fault tests: chattr +i is not available here: skipped");
  return ok;
})();

/** Fills the file system holding `dir` up to the last byte; returns the filler's path. */
export async function fillDisk(dir: string): Promise<string> {
  const path = `${dir}/filler`;
  const file = await Deno.open(path, { write: true, create: true });
  try {
    for (const size of [1 << 16, 512, 1]) {
      const block = new Uint8Array(size);
      try {
        for (;;) await file.write(block);
      } catch (error) {
        if (!(error instanceof Error) || !/No space left/.test(error.message)) throw error;
      }
    }
  } finally {
    file.close();
  }
  return path;
}

/**
 * A home on its own tmpfs of `size`, with `logs/` on a second one, so filling the home fills
 * only the store's disk. Release it with `releaseTmpfsHome`.
 */
export async function tmpfsHome(size: string): Promise<string> {
  const home = await Deno.makeTempDir({ prefix: "svc-full-" });
  if (!mountTmpfs(home, size)) throw new Error(`Cannot mount a tmpfs on "${home}"`);
  await Deno.mkdir(`${home}/logs`);
  if (!mountTmpfs(`${home}/logs`, size)) throw new Error(`Cannot mount a tmpfs on "${home}/logs"`);
  return home;
}

/** Unmounts and removes a `tmpfsHome`. */
export async function releaseTmpfsHome(home: string): Promise<void> {
  unmount(`${home}/logs`);
  unmount(home);
  await Deno.remove(home, { recursive: true }).catch(() => {});
}
