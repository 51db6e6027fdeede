/**
 * The callbacks of one kind of change, as the face-free modules publish them
 * (store, focus, view state): `subscribe` is what React's
 * useSyncExternalStore takes.
 */
export class Listeners {
  readonly #listeners = new Set<() => void>();

  /** Calls `listener` at each `notify`; returns the unsubscribe. */
  readonly subscribe = (listener: () => void): () => void => {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  };

  /** Calls every listener, in the order they subscribed. */
  notify(): void {
    for (const listener of this.#listeners) listener();
  }
}
