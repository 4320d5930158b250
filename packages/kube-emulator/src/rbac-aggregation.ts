// E9: the clusterrole-aggregation controller of kube-controller-manager. A ClusterRole with an
// aggregationRule has, as its rules, the rules of every other ClusterRole that one of its
// clusterRoleSelectors matches (each selector's matches in name order, a rule already taken not
// repeated); the controller writes them into the object whenever a ClusterRole changes, so the
// authorizer (rbac-authorizer.ts) and readers see them as stored rules, as on a real cluster.

import { selectorRequirements } from './admission-match.ts';
import type { KubeApi } from './api.ts';
import { CLUSTERROLES, storageKeyOf } from './registry.ts';
import { matchesLabels } from './selectors.ts';
import type { ObjectStore } from './store.ts';
import { isObject, jsonEqual, type KubeObject } from './types.ts';

export const AGGREGATION_MANAGER = 'clusterrole-aggregation-controller';

/** The rules an aggregated ClusterRole should hold, from the ClusterRoles stored now. */
export function aggregatedRules(role: KubeObject, roles: readonly KubeObject[]): unknown[] {
  const selectors = isObject(role.aggregationRule) && Array.isArray(role.aggregationRule.clusterRoleSelectors) ? role.aggregationRule.clusterRoleSelectors : [];
  const rules: unknown[] = [];
  const byName = [...roles].sort((a, b) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1));
  for (const selector of selectors) {
    const requirements = selectorRequirements(selector);
    for (const other of byName) {
      if (other.metadata.name === role.metadata.name || !matchesLabels(requirements, other.metadata.labels)) continue;
      for (const rule of Array.isArray(other.rules) ? other.rules : []) {
        if (!rules.some((taken) => jsonEqual(taken, rule))) rules.push(rule);
      }
    }
  }
  return rules;
}

export class ClusterRoleAggregation {
  private readonly unsubscribe: () => void;
  private scheduled = false;
  private stopped = false;

  constructor(
    private readonly store: ObjectStore,
    private readonly api: KubeApi,
  ) {
    this.unsubscribe = store.subscribe((event) => {
      if (event.storageKey === storageKeyOf(CLUSTERROLES)) this.schedule();
    });
  }

  /** Brings every aggregated ClusterRole's rules up to date now. */
  sync(): void {
    const roles = this.store.list(storageKeyOf(CLUSTERROLES));
    for (const role of roles) {
      if (!isObject(role.aggregationRule)) continue;
      const rules = aggregatedRules(role, roles);
      const current = Array.isArray(role.rules) ? role.rules : [];
      if (jsonEqual(current, rules)) continue;
      try {
        this.api.replace({ type: CLUSTERROLES, name: role.metadata.name }, { ...role, rules }, { fieldManager: AGGREGATION_MANAGER });
      } catch {
        // Changed meanwhile: that change schedules another pass.
      }
    }
  }

  stop(): void {
    this.stopped = true;
    this.unsubscribe();
  }

  // Writes from a store listener would re-enter the write being announced; one pass after it.
  private schedule(): void {
    if (this.scheduled || this.stopped) return;
    this.scheduled = true;
    queueMicrotask(() => {
      this.scheduled = false;
      if (!this.stopped) this.sync();
    });
  }
}
