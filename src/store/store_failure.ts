/**
 * SQLite failures that mean the store itself cannot be written (a full
 * disk, a read-only or damaged file): answered 503 `store_unavailable`,
 * never 500 (issue 13). Primary result codes, from an extended `errcode`.
 */
const STORE_FAILURES: ReadonlySet<number> = new Set([
  8, // SQLITE_READONLY
  10, // SQLITE_IOERR
  11, // SQLITE_CORRUPT
  13, // SQLITE_FULL
  14, // SQLITE_CANTOPEN
  26, // SQLITE_NOTADB
]);

/** True for a node:sqlite error whose cause is the store, not the request. */
export function isStoreFailure(error: unknown): boolean {
  const errcode = (error as { errcode?: unknown } | null)?.errcode;
  return typeof errcode === "number" && STORE_FAILURES.has(errcode & 0xff);
}
