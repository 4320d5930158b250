// What differs between kinds: defaulting, validation, field selectors, subresources and the
// side effects of a write (a CRD registers its resources, a namespace takes its objects with it).
// The API layer (api.ts) runs the shared flow and calls into these.

import type { FieldError, StatusError } from '../errors.ts';
import type { ResourceRegistry, ResourceType } from '../registry.ts';
import type { FieldGetter } from '../selectors.ts';
import type { ObjectStore } from '../store.ts';
import type { KubeObject } from '../types.ts';
import type { NameValidator } from '../validation.ts';

export interface StrategyContext {
  readonly store: ObjectStore;
  readonly registry: ResourceRegistry;
}

export interface Strategy {
  validateName: NameValidator;
  /** Field selectors the real server indexes for this kind, besides metadata.name and metadata.namespace. */
  fieldLabels: Record<string, FieldGetter>;
  /** The refusal of any other field, where the kind's conversion function words it its own way. */
  fieldLabelRefusal?: (field: string) => string;
  /** PUT without metadata.resourceVersion is accepted (false for custom resources and CRDs). */
  allowUnconditionalUpdate: boolean;
  /**
   * The kind keeps metadata.generation (its strategy sets 1 on create and bumps it on spec
   * changes). ConfigMaps, Secrets, Namespaces, Events and Leases have none on a real server.
   */
  hasGeneration: boolean;
  /**
   * An annotation change bumps metadata.generation too (Deployments: the deployment controller
   * copies annotations to ReplicaSets, so it must see them change; pkg/registry/apps/deployment).
   */
  generationCountsAnnotations?: boolean;
  /**
   * A /status write may change metadata.annotations as well as status. A real Deployment's status
   * strategy resets only spec and labels, and the deployment controller writes its
   * `deployment.kubernetes.io/revision` annotation that way (UpdateStatus), so that the annotation
   * does not bump metadata.generation. Otherwise a /status write changes status alone.
   */
  statusWritesAnnotations?: boolean;
  /** PUT of a missing object creates it (true for Events only). */
  allowCreateOnUpdate: boolean;
  /** DELETE answers the deleted object; otherwise a Status Success naming it. */
  deleteReturnsObject: boolean;
  /**
   * The real server deletes this kind through hand-written REST code (namespaces, CRDs), whose
   * precondition failures do not carry the generic store's "StorageError: invalid object" wrapper.
   */
  ownDeleteHandler: boolean;
  /** Defaulting and normalization of a new object, before validation. May throw a StatusError. */
  prepareForCreate?(object: KubeObject, type: ResourceType): void;
  /** Defaulting and normalization of an updated object, before validation. May throw a StatusError. */
  prepareForUpdate?(object: KubeObject, old: KubeObject, type: ResourceType): void;
  /** Normalization of a status written through /status (the status part only), before validation. */
  prepareForStatusUpdate?(object: KubeObject, old: KubeObject, type: ResourceType): void;
  validate?(object: KubeObject, old: KubeObject | undefined, type: ResourceType): FieldError[];
  /** Refuses a delete before anything happens (a protected namespace). */
  checkDelete?(object: KubeObject, type: ResourceType): StatusError | undefined;
  /** Runs after a successful, non-dry-run create or update. */
  afterWrite?(object: KubeObject, context: StrategyContext): void;
  /** Runs before the object leaves the store, to take dependent objects with it. */
  beforeDelete?(object: KubeObject, context: StrategyContext): void;
  /** Runs after the object is gone from the store. */
  afterDelete?(object: KubeObject, context: StrategyContext): void;
}

export const defaultStrategy: Omit<Strategy, 'validateName'> = {
  fieldLabels: {},
  allowUnconditionalUpdate: true,
  hasGeneration: false,
  allowCreateOnUpdate: false,
  deleteReturnsObject: false,
  ownDeleteHandler: false,
};

/** Reads a dotted path such as `involvedObject.kind` for field selectors. */
export function fieldAt(path: string): FieldGetter {
  const parts = path.split('.');
  return (object) => {
    let current: unknown = object;
    for (const part of parts) {
      if (typeof current !== 'object' || current === null) return undefined;
      current = (current as Record<string, unknown>)[part];
    }
    return current === undefined || current === null ? undefined : String(current);
  };
}
