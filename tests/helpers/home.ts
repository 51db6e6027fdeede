/** A fresh 0700 temporary directory for a daemon home (short, so socket paths fit). */
export async function tempHome(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "svc-" });
  await Deno.chmod(dir, 0o700);
  return dir;
}

/** Removes a temporary tree, ignoring what is already gone. */
export async function removeTree(path: string): Promise<void> {
  await Deno.remove(path, { recursive: true }).catch(() => {});
}
