'use client';

import { useId, useState, type FormEvent } from 'react';
import { agentKeys, createAgent, HARNESS_PROVIDERS, SELF_CONFIGURE_ACTIONS, type CreateAgentInput } from '../../lib/agents';
import type { ConfigurationSummary } from '../../lib/configurations';
import { isFieldError } from '../../lib/errors';
import { secretKeys } from '../../lib/secrets';
import { useResultMutation } from '../../lib/use-result-mutation';
import { FormOutcome } from '../feedback/FormOutcome';
import { SecretPicker, type PickedSecret } from '../secrets/SecretPicker';
import { ServicePrincipalCallout } from './ServicePrincipalCallout';
import { BusyForm } from '../ui/Busy';

export function CreateAgentForm({
  namespaceId,
  configurations,
}: {
  namespaceId: string;
  configurations: ConfigurationSummary[];
}) {
  const id = useId();
  const [provider, setProvider] = useState('');
  const [selfConfigure, setSelfConfigure] = useState(false);
  const [harnessSecret, setHarnessSecret] = useState<PickedSecret | null>(null);
  // A new picker after each created agent: form.reset() does not reach a controlled field.
  const [pickerKey, setPickerKey] = useState(0);
  const [consumedSecrets, setConsumedSecrets] = useState<{ id: string; name: string }[]>([]);

  const mutation = useResultMutation({
    mutationFn: createAgent,
    invalidate: [agentKeys.all, secretKeys.all],
  });
  const failure = mutation.failure;

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const fields = new FormData(form);
    const configurationId = String(fields.get('configurationId') ?? '');
    const harnessSecretId = harnessSecret?.id ?? '';
    const input: CreateAgentInput = { namespaceId, name: String(fields.get('name') ?? '').trim() };
    if (configurationId) input.configurationId = configurationId;
    if (provider) input.harnessAuth = { provider, source: { id: harnessSecretId } };
    input.selfConfigure = {
      enabled: selfConfigure,
      allowedActions: selfConfigure ? fields.getAll('allowedActions').map(String) : [],
    };

    const configuration = configurations.find((c) => c.id === configurationId);
    const consumed = new Map<string, string>();
    for (const binding of configuration?.secretBindings ?? []) {
      consumed.set(binding.source.id, binding.secret?.name ?? binding.source.id);
    }
    if (provider && harnessSecretId) {
      consumed.set(harnessSecretId, harnessSecret?.name ?? harnessSecretId);
    }

    mutation.submit(input, {
      onSuccess: () => {
        form.reset();
        setProvider('');
        setSelfConfigure(false);
        setHarnessSecret(null);
        setPickerKey((key) => key + 1);
        setConsumedSecrets([...consumed].map(([secretId, name]) => ({ id: secretId, name })));
      },
    });
  }

  return (
    <section aria-labelledby={`${id}-title`} className="card">
      <h2 id={`${id}-title`}>Create an agent</h2>
      <BusyForm busy={mutation.pending} method="post" className="form" onSubmit={onSubmit}>
        <fieldset disabled={mutation.pending}>
          <div className="grid-2">
            <div className="field">
              <label htmlFor={`${id}-name`}>Agent name</label>
              <input
                id={`${id}-name`}
                name="name"
                type="text"
                required
                autoComplete="off"
                spellCheck={false}
                maxLength={63}
                aria-invalid={isFieldError(failure, 'name') || undefined}
              />
            </div>
            <div className="field">
              <label htmlFor={`${id}-configuration`}>Configuration</label>
              <select
                id={`${id}-configuration`}
                name="configurationId"
                defaultValue=""
                aria-invalid={isFieldError(failure, 'configurationId') || undefined}
              >
                <option value="">None</option>
                {configurations.map((configuration) => (
                  <option key={configuration.id} value={configuration.id}>
                    {configuration.name}
                  </option>
                ))}
              </select>
            </div>
          </div>
          <fieldset className="choices">
            <legend>Harness auth (the model credential)</legend>
            <div className="grid-2">
              <div className="field">
                <label htmlFor={`${id}-provider`}>Provider</label>
                <select
                  id={`${id}-provider`}
                  value={provider}
                  onChange={(event) => setProvider(event.target.value)}
                  aria-invalid={isFieldError(failure, 'provider') || undefined}
                >
                  <option value="">None</option>
                  {HARNESS_PROVIDERS.map((p) => (
                    <option key={p} value={p}>
                      {p}
                    </option>
                  ))}
                </select>
              </div>
              <SecretPicker
                key={pickerKey}
                namespaceId={namespaceId}
                label="Credential secret"
                value={harnessSecret}
                onChange={setHarnessSecret}
                disabled={!provider}
                required={Boolean(provider)}
                invalid={isFieldError(failure, 'source')}
              />
            </div>
            <p className="hint">The provider decides the env name the credential is delivered under.</p>
          </fieldset>
          <fieldset className="choices">
            <legend>Self-configure</legend>
            <label className="checkbox">
              <input type="checkbox" checked={selfConfigure} onChange={(event) => setSelfConfigure(event.target.checked)} />
              Enabled
            </label>
            <div role="group" aria-label="Allowed self-configure actions">
              {SELF_CONFIGURE_ACTIONS.map((action) => (
                <label key={action} className="checkbox">
                  <input type="checkbox" name="allowedActions" value={action} disabled={!selfConfigure} />
                  {action}
                </label>
              ))}
            </div>
          </fieldset>
          <button type="submit" className="button primary">
            {mutation.pending ? 'Creating…' : 'Create agent'}
          </button>
        </fieldset>
      </BusyForm>
      <FormOutcome outcome={mutation.outcome} doing="create the agent">
        {(result) => (
          <div role="status" className="alert success">
            <p>
              Agent <strong>{result.agent.name}</strong> created.
            </p>
            <ServicePrincipalCallout
              namespaceId={namespaceId}
              servicePrincipalId={result.servicePrincipalId}
              consumedSecrets={consumedSecrets}
            />
          </div>
        )}
      </FormOutcome>
    </section>
  );
}
