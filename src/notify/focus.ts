/**
 * Which sessions a face has in focus (D31's `turn.finished`): `svc ui` and
 * the web face follow the focused session's event stream with `focus=1`, and
 * the session counts as watched while such a stream is open. A face that goes
 * away closes its stream, so a focus never outlives it: no lease to expire.
 */
export class FocusRegistry {
  readonly #open = new Map<string, number>();

  /** Marks `sessionId` as in focus until the returned function runs (once). */
  hold(sessionId: string): () => void {
    this.#open.set(sessionId, (this.#open.get(sessionId) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const count = (this.#open.get(sessionId) ?? 1) - 1;
      if (count > 0) this.#open.set(sessionId, count);
      else this.#open.delete(sessionId);
    };
  }

  /** Whether some face has `sessionId` in focus now. */
  has(sessionId: string): boolean {
    return this.#open.has(sessionId);
  }
}
