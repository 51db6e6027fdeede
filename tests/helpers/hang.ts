/**
 * Hang detection for tests. Tests never assert that something was fast
 * (speed is measured by `deno task bench`; these machines are shared and
 * noisy): they may only fail when an operation never completes. A generous
 * timer raced against the operation tells a hang from a slow answer.
 */

/** How long an operation may stay pending before a test calls it hung. */
export const HANG_MS = 15_000;

/**
 * Resolves or rejects like `operation`, unless `ms` pass first: then rejects
 * with an error saying `what` hung. The timer is always cleared, so it never
 * outlives the call (the ops sanitizer stays quiet).
 */
export async function withinHang<T>(
  operation: Promise<T>,
  ms: number = HANG_MS,
  what = "the operation",
): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const hung = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what} hung: still pending after ${ms} ms`)),
      ms,
    );
  });
  try {
    return await Promise.race([operation, hung]);
  } finally {
    clearTimeout(timer);
  }
}
