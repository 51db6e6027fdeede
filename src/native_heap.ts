/**
 * Gives the C heap's free pages back to the system (glibc `malloc_trim`):
 * after a busy spell, glibc keeps what it freed (issue 26: 39.6 MB held with
 * 8.1 MB in use after the 2-minute soak). Only where it can run: Linux with
 * glibc and the FFI permission (`deno run -A`); the compiled binary has no
 * `--allow-ffi`, so there it does nothing. docs/benchmarks.md.
 */
type Trim = () => void;

let trim: Trim | null | undefined;

function load(): Trim | null {
  if (Deno.build.os !== "linux") return null;
  if (Deno.permissions.querySync({ name: "ffi" }).state !== "granted") return null;
  try {
    const libc = Deno.dlopen("libc.so.6", {
      malloc_trim: { parameters: ["usize"], result: "i32" },
    });
    return () => void libc.symbols.malloc_trim(0n);
  } catch {
    return null; // Not glibc (musl has no libc.so.6 of that name).
  }
}

/** Trims the C heap when it can; says whether it did. */
export function trimNativeHeap(): boolean {
  if (trim === undefined) trim = load();
  if (trim === null) return false;
  trim();
  return true;
}
