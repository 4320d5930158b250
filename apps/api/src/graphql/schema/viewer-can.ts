import { CAPABILITIES, capabilityRequest, type Capability, type CapabilityKind } from '../../services/capabilities.ts';
import { builder } from '../builder.ts';
import { AgentRef } from './agent.ts';
import { ConfigurationRef } from './configuration.ts';
import { NamespaceRef } from './namespace.ts';
import { SecretRef } from './secret.ts';

// viewerCan: per object, what the caller may do to it, so the console can hide or disable a
// control (with the reason) instead of refusing after the form is filled. Each field is the
// decision the object's mutations make (services/capabilities.ts builds both requests), decided
// in memory from the bindings the request loaded once: a page of 100 objects asks no more SQL.

type Located = { id: string; namespaceId?: string };
/** An object type viewerCan is added to (its values carry their id, and their namespace's). */
type On = Parameters<typeof builder.objectField>[0];

function viewerCan<K extends CapabilityKind>(kind: K, typename: string, on: On): void {
  const entries = Object.entries(CAPABILITIES[kind]) as Array<[Capability<K>, { mutations: readonly string[] }]>;
  const Ref = builder.objectRef<Located>(`${typename}ViewerCan`).implement({
    description: `What you may do to this ${typename}: each field is the decision its mutations would make now.`,
    fields: (t) =>
      Object.fromEntries(
        entries.map(([capability, entry]) => [
          capability,
          t.boolean({
            description: `Whether you may: ${entry.mutations.join(', ')}.`,
            resolve: async (object, _args, ctx) =>
              (await ctx.loaders.may(capabilityRequest(kind, capability, { id: object.id, namespaceId: object.namespaceId ?? object.id }))).allowed,
          }),
        ]),
      ),
  });
  builder.objectField(on, 'viewerCan', (t) => t.field({ type: Ref, description: 'What you may do to it (the same decisions its mutations make).', resolve: (object) => object as Located }));
}

viewerCan('namespace', 'Namespace', NamespaceRef);
viewerCan('secret', 'Secret', SecretRef);
viewerCan('configuration', 'Configuration', ConfigurationRef);
viewerCan('agent', 'Agent', AgentRef);
