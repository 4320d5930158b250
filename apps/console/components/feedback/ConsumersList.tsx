import type { SecretConsumers } from '../../lib/errors';

export function ConsumersList({ consumers }: { consumers: SecretConsumers }) {
  return (
    <div className="consumers">
      <p>
        Used by {consumers.total} {consumers.total === 1 ? 'consumer' : 'consumers'}:
      </p>
      <ul aria-label="Consumers">
        {consumers.items.map((item) => (
          <li key={`${item.kind}:${item.id}`}>
            <span className="kind">{item.kind}</span> {item.name} <code>{item.id}</code>
          </li>
        ))}
      </ul>
      {consumers.hiddenCount > 0 ? (
        <p className="hint">
          and {consumers.hiddenCount} more you are not allowed to see.
        </p>
      ) : null}
    </div>
  );
}
