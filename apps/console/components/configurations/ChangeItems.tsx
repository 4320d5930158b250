import { shortJson, type ConfigurationChanges } from '../../lib/config-diff';

/**
 * The items of a configuration change list (inside the caller's <ul>): what a save would change in
 * the editor, what a generation changed in the history. `secretName` names a bound secret by id.
 */
export function ChangeItems({ changes, secretName }: { changes: ConfigurationChanges; secretName: (secretId: string | undefined) => string }) {
  return (
    <>
      {changes.values.map((c) => (
        <li key={`v${c.path}`} data-change={c.change}>
          <span className="badge">{c.change}</span> <code>{c.path}</code>
          {c.change === 'changed' ? (
            <>
              : <code>{shortJson(c.before)}</code> → <code>{shortJson(c.after)}</code>
            </>
          ) : c.change === 'added' ? (
            <>
              : <code>{shortJson(c.after)}</code>
            </>
          ) : null}
        </li>
      ))}
      {changes.bindings.map((c) => (
        <li key={`b${c.envName}`} data-change={c.change}>
          <span className="badge">{c.change}</span> binding <code>{c.envName}</code>
          {c.change === 'changed' ? ` from ${secretName(c.before)} to ${secretName(c.after)}` : c.change === 'added' ? ` to ${secretName(c.after)}` : ` (was ${secretName(c.before)})`}
        </li>
      ))}
    </>
  );
}
