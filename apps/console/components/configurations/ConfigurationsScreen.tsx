'use client';

import { useQuery } from '@tanstack/react-query';
import Link from 'next/link';
import { useSearchParams } from 'next/navigation';
import { configurationQueryOptions, namespaceConfigurationsQueryOptions } from '../../lib/configurations';
import { formatDateTime } from '../../lib/format';
import { namespaceSecretsQueryOptions } from '../../lib/secrets';
import { QueryErrorAlert } from '../feedback/QueryErrorAlert';
import { MissingNamespace, NamespaceHeader, namespaceHref, UnknownNamespace } from '../namespaces/NamespaceHeader';
import { ConfigurationTable } from './ConfigurationTable';
import { CreateConfigurationForm } from './CreateConfigurationForm';
import { EditConfigurationForm } from './EditConfigurationForm';
import { SecretBindingsTable } from './SecretBindingsTable';

// /configurations?namespace=ns_… lists and creates; adding &id=cfg_… opens one configuration.
export function ConfigurationsScreen() {
  const params = useSearchParams();
  const namespaceId = params.get('namespace');
  const configurationId = params.get('id');
  if (!namespaceId) return <MissingNamespace title="Configurations" />;
  if (configurationId) return <ConfigurationDetail namespaceId={namespaceId} configurationId={configurationId} />;
  return <NamespaceConfigurations namespaceId={namespaceId} />;
}

function NamespaceConfigurations({ namespaceId }: { namespaceId: string }) {
  const { data, error, isPending } = useQuery(namespaceConfigurationsQueryOptions(namespaceId));
  const secrets = useQuery(namespaceSecretsQueryOptions(namespaceId));

  if (isPending) return <p role="status">Loading configurations…</p>;
  if (error) {
    return (
      <>
        <h1>Configurations</h1>
        <QueryErrorAlert error={error} what="this namespace" />
      </>
    );
  }
  if (!data) return <UnknownNamespace title="Configurations" namespaceId={namespaceId} />;

  const { namespace, configurations, hasMore } = data;
  return (
    <>
      <NamespaceHeader namespace={namespace} section="configurations" title={`Configurations in ${namespace.name}`} />
      <p className="lede">
        A configuration is the native OpenClaw document plus the secrets it binds to env names. Agents use one.
      </p>
      {secrets.error ? <QueryErrorAlert error={secrets.error} what="the namespace's secrets" /> : null}
      <CreateConfigurationForm namespace={namespace} secrets={secrets.data?.secrets ?? []} />
      <section aria-labelledby="configurations-list-title">
        <h2 id="configurations-list-title">Configurations</h2>
        <ConfigurationTable namespaceId={namespace.id} configurations={configurations} />
        {hasMore ? <p className="hint">Showing the first {configurations.length} configurations.</p> : null}
      </section>
    </>
  );
}

function ConfigurationDetail({ namespaceId, configurationId }: { namespaceId: string; configurationId: string }) {
  const { data: configuration, error, isPending } = useQuery(configurationQueryOptions(configurationId));
  const secrets = useQuery(namespaceSecretsQueryOptions(namespaceId));
  const back = (
    <p>
      <Link href={namespaceHref('configurations', namespaceId)}>Back to configurations</Link>
    </p>
  );

  if (isPending) return <p role="status">Loading configuration…</p>;
  if (error) {
    return (
      <>
        <h1>Configuration</h1>
        <QueryErrorAlert error={error} what="this configuration" />
        {back}
      </>
    );
  }
  if (!configuration || !configuration.namespace || configuration.namespace.id !== namespaceId) {
    return (
      <>
        <h1>Configuration</h1>
        <p role="alert" className="alert error">
          Configuration <code>{configurationId}</code> does not exist in this namespace or you may not see it.
        </p>
        {back}
      </>
    );
  }

  return (
    <>
      <NamespaceHeader
        namespace={configuration.namespace}
        section="configurations"
        title={`Configuration ${configuration.name}`}
      />
      {back}
      <dl className="facts">
        <dt>ID</dt>
        <dd>
          <code>{configuration.id}</code>
        </dd>
        <dt>Generation</dt>
        <dd data-testid="generation">{configuration.generation}</dd>
        <dt>Updated</dt>
        <dd>
          <time dateTime={configuration.updatedAt}>{formatDateTime(configuration.updatedAt)}</time>
        </dd>
      </dl>
      <section aria-labelledby="bindings-title" className="section">
        <h2 id="bindings-title">Secret bindings</h2>
        <SecretBindingsTable bindings={configuration.secretBindings} />
      </section>
      <section aria-labelledby="values-title">
        <h2 id="values-title">Values</h2>
        <pre className="json">{JSON.stringify(configuration.values, null, 2)}</pre>
      </section>
      <EditConfigurationForm
        key={configuration.id}
        configuration={configuration}
        secrets={secrets.data?.secrets ?? []}
      />
    </>
  );
}
