import { isId } from '@occ/domain/ids';
import { ConflictError } from '@occ/domain/errors';
import { kubernetesNamespaceName } from '@occ/domain/kubernetes-names';
import { validateNamespaceName } from '@occ/domain/validation';
import { z } from 'zod';
import { transaction, type Tx } from '../db/client.ts';
import { and, sql } from '../db/sql.ts';
import { ForeignNamespaceError } from '../drivers/kubernetes-namespaces.ts';
import { newId } from '../ids.ts';
import { defineWorkKind, PermanentWorkError, type WorkKind } from '../worker.ts';
import { authorize, readableBy } from './access.ts';
import { audit } from './audit.ts';
import type { Actor, Deps } from './deps.ts';
import { sqlKeysetPage, namePrefixSql, readableScopes, type PageOf, type PageRequest } from './pagination.ts';
import { enqueue } from './work-queue.ts';

export const PROVISION_NAMESPACE = 'namespace.provision';

export interface NamespaceView {
  id: string;
  name: string;
  status: 'PROVISIONING' | 'READY' | 'FAILED' | 'DELETING' | 'LOST';
  statusMessage: string | null;
  k8sName: string;
  createdAt: Date;
}

/** Creates the Namespace as provisioning and queues the work that makes it ready (K1). */
export async function createNamespace(deps: Deps, actor: Actor, input: { name: string }): Promise<NamespaceView> {
  const invalid = validateNamespaceName(input.name);
  if (invalid) throw invalid;
  await authorize(deps, actor, { action: 'create', resourceKind: 'namespace', namespaceId: null, resourceId: null });
  const id = newId('namespace');
  try {
    return await transaction(deps.db, async (tx) => {
      const row = await tx.namespace.create({
        data: { id, name: input.name, k8sName: kubernetesNamespaceName(id), status: 'PROVISIONING', createdById: actor.principalId },
      });
      await enqueue(tx, PROVISION_NAMESPACE, `${PROVISION_NAMESPACE}:${id}`, { namespaceId: id });
      await audit(tx, {
        actorId: actor.principalId,
        action: 'namespace.create',
        resourceKind: 'namespace',
        resourceId: id,
        namespaceId: id,
        outcome: 'SUCCESS',
        details: { name: input.name },
      });
      return row;
    });
  } catch (error) {
    if ((error as { code?: string }).code === 'P2002') throw new ConflictError(`A namespace named ${input.name} exists.`, 'NAME_TAKEN');
    throw error;
  }
}

const ProvisionNamespacePayload = z.object({ namespaceId: z.string().refine((id) => isId('namespace', id), 'a namespace id') });

/**
 * K1 as work in steps (R4): create the Kubernetes namespace (idempotent: an existing one is
 * adopted only when it carries this namespace's and this installation's labels), then mark the
 * Namespace ready with its audit event, committed together with the lease check. A worker that
 * dies between the two leaves the second to whoever takes the item next; nothing runs twice that
 * writes the database.
 */
export function provisionNamespaceKind(deps: Deps): WorkKind<z.infer<typeof ProvisionNamespacePayload>> {
  const audited = (tx: Tx, namespaceId: string, k8sName: string, outcome: 'SUCCESS' | 'FAILURE', reason?: string) =>
    audit(tx, {
      actorId: null,
      system: 'worker',
      action: 'namespace.provision',
      resourceKind: 'namespace',
      resourceId: namespaceId,
      namespaceId,
      outcome,
      ...(reason ? { reason } : {}),
      details: { k8sName },
    });
  return defineWorkKind({
    kind: PROVISION_NAMESPACE,
    payload: ProvisionNamespacePayload,
    steps: [
      {
        name: 'create-kubernetes-namespace',
        async run({ namespaceId }) {
          const ns = await deps.db.namespace.findUnique({ where: { id: namespaceId } });
          if (!ns) return;
          try {
            await deps.namespaceDriver.ensure(ns.k8sName, ns.id);
          } catch (error) {
            if (error instanceof ForeignNamespaceError) throw new PermanentWorkError('FOREIGN_KUBERNETES_NAMESPACE', error.message);
            throw error;
          }
        },
      },
      {
        name: 'mark-ready',
        async run({ namespaceId }, ctx) {
          await ctx.commit(async (tx) => {
            const ns = await tx.namespace.findUnique({ where: { id: namespaceId } });
            if (!ns || ns.status !== 'PROVISIONING') return;
            await tx.namespace.update({ where: { id: ns.id }, data: { status: 'READY', statusMessage: null } });
            await audited(tx, ns.id, ns.k8sName, 'SUCCESS');
          });
        },
      },
    ],
    async onPermanentFailure(tx, { namespaceId }, failure) {
      const ns = await tx.namespace.findUnique({ where: { id: namespaceId } });
      if (!ns || ns.status !== 'PROVISIONING') return;
      const reason = failure.code === 'ATTEMPTS_EXHAUSTED' ? 'KUBERNETES_UNAVAILABLE' : failure.code;
      const message = failure.code === 'ATTEMPTS_EXHAUSTED' ? `The Kubernetes namespace could not be created: ${failure.message}.` : failure.message;
      await tx.namespace.update({ where: { id: ns.id }, data: { status: 'FAILED', statusMessage: message } });
      await audited(tx, ns.id, ns.k8sName, 'FAILURE', reason);
    },
  });
}



/** A page of the namespaces the actor may read, filtered and ordered in SQL. */
export async function listNamespaces(deps: Deps, actor: Actor, page: PageRequest, filter: { namePrefix?: string | null } = {}): Promise<PageOf<NamespaceView>> {
  const readable = await readableBy(deps.db, actor, 'namespace');
  // A namespace is the namespace that holds it.
  const where = and([namePrefixSql(filter.namePrefix)]);
  return sqlKeysetPage(deps.db, page, { columns: sql`*`, table: sql`"public"."Namespace"`, where, visible: readableScopes(readable, '"id"') }, (row: NamespaceView) => row);
}
