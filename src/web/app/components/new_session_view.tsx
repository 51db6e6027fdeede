/// <reference lib="dom" />
/**
 * A new session (`/#/new`, D30, `svc ui`'s view 7): the form's fields are
 * the page's own inputs, but what they hold, the checks before a launch and
 * the launch itself are `svc ui`'s view state's (runtime.view, with
 * src/ui/new_session_form.ts). The daemon's refusal (a project root outside
 * its roots, say) shows under the form as the daemon words it; a launch
 * opens the new session's page. Only an `operate` device gets the form.
 */
import { type FormEvent, type KeyboardEvent, useEffect, useRef, useSyncExternalStore } from "react";
import type { Snapshot } from "../../../ui/model.ts";
import { formUnavailable } from "../../../ui/new_session_form.ts";
import { harnessText, launchRefusal, projectRootChoices } from "../launch_form.ts";
import { hrefOf } from "../route.ts";
import type { WebRuntime } from "../web_runtime.ts";

/** Launches the form's session and, when it started, opens its page. */
export async function launchFromForm(runtime: WebRuntime): Promise<void> {
  const outcome = await runtime.view.launch();
  if (outcome?.sessionId) {
    location.assign(hrefOf({ view: "session", sessionId: outcome.sessionId }));
  }
}

export function NewSessionView(
  { runtime, snapshot, scopes }: {
    runtime: WebRuntime;
    snapshot: Snapshot;
    scopes: readonly string[];
  },
) {
  const viewed = useSyncExternalStore(runtime.view.subscribe, runtime.view.snapshot);
  // The line shown here is this form's: an earlier page's outcome is not.
  useEffect(() => {
    runtime.view.say(null);
  }, [runtime]);
  // A refusal shows in sight, on a phone too, where the form is taller than the screen.
  const said = useRef<HTMLParagraphElement>(null);
  useEffect(() => {
    // Not returned: Chromium's scrollIntoView returns a promise, which React would call on cleanup.
    void said.current?.scrollIntoView({ block: "nearest" });
  }, [viewed.message]);
  const refusal = launchRefusal(scopes);
  const unavailable = formUnavailable(snapshot.harnesses, snapshot.connection);
  const heading = <h1 id="new-title">New session</h1>;
  if (refusal !== null || unavailable !== null) {
    return (
      <section aria-labelledby="new-title">
        {heading}
        <p role="alert">{refusal ?? unavailable}</p>
      </section>
    );
  }
  const { form, launching, message } = viewed;
  const edit = runtime.view.editForm.bind(runtime.view);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!launching) void launchFromForm(runtime);
  };
  // Esc in a field gives the page its keys back (then Esc goes back, as in svc ui).
  const leaveField = (event: KeyboardEvent<HTMLElement>) => {
    if (event.key === "Escape") event.currentTarget.blur();
  };
  return (
    <section aria-labelledby="new-title">
      {heading}
      <form className="new-session" onSubmit={submit}>
        <label>
          Harness
          <select
            value={form.harness % snapshot.harnesses.length}
            onChange={(event) => edit({ harness: Number(event.target.value) })}
            onKeyDown={leaveField}
          >
            {snapshot.harnesses.map((choice, index) => (
              <option key={choice.id} value={index}>{harnessText(choice)}</option>
            ))}
          </select>
        </label>
        <label>
          Project root
          <input
            type="text"
            list="project-roots"
            autoCapitalize="off"
            autoComplete="off"
            spellCheck={false}
            placeholder="/path/to/project"
            value={form.projectRoot}
            onChange={(event) => edit({ projectRoot: event.target.value })}
            onKeyDown={leaveField}
          />
        </label>
        <datalist id="project-roots">
          {projectRootChoices(snapshot).map((root) => <option key={root} value={root} />)}
        </datalist>
        <label>
          Prompt
          <textarea
            rows={5}
            autoFocus
            value={form.prompt}
            onChange={(event) => edit({ prompt: event.target.value })}
            onKeyDown={(event) => {
              // Enter is a new line in the prompt; Ctrl/⌘-Enter launches.
              if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) submit(event);
              leaveField(event);
            }}
          />
        </label>
        <label>
          Model
          <input
            type="text"
            autoCapitalize="off"
            autoComplete="off"
            spellCheck={false}
            placeholder="Optional: the harness's default"
            value={form.model}
            onChange={(event) => edit({ model: event.target.value })}
            onKeyDown={leaveField}
          />
        </label>
        <label className="check">
          <input
            type="checkbox"
            checked={form.worktree}
            onChange={(event) => edit({ worktree: event.target.checked })}
            onKeyDown={leaveField}
          />
          Isolate in a git worktree
        </label>
        {message !== null && (
          <p ref={said} className={message.ok ? "outcome" : "outcome bad"} role="alert">
            {message.message}
          </p>
        )}
        <div className="controls">
          <button type="submit" disabled={launching}>
            {launching ? "Launching…" : "Launch"}
          </button>
        </div>
      </form>
    </section>
  );
}
