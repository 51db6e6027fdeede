/**
 * The `?` help of the web app (D30): `svc ui`'s own `helpSections` for the
 * view, as one page (the terminal pages it; `help_page.ts`). Esc or `?` closes.
 */
import { helpSections, type View } from "../../../ui/keymap.ts";

export function KeyHelp({ view, onClose }: { view: View; onClose: () => void }) {
  return (
    <section role="dialog" aria-labelledby="keys-title" className="key-help">
      <h1 id="keys-title">Keys</h1>
      <p className="meta">
        svc ui's keys. In the browser Tab moves the focus, q does not close the page, and keys typed
        in a field are text.
      </p>
      <div className="help-sections">
        {helpSections(view).map((section) => (
          <div key={section.title} className="help-section">
            <h2>{section.title}</h2>
            <dl>
              {section.entries.map((entry) => (
                <div key={`${entry.keys} ${entry.help}`}>
                  <dt>
                    <kbd>{entry.keys}</kbd>
                  </dt>
                  <dd>{entry.help}</dd>
                </div>
              ))}
            </dl>
          </div>
        ))}
      </div>
      <div className="controls">
        <button type="button" onClick={onClose}>Close</button>
      </div>
    </section>
  );
}
