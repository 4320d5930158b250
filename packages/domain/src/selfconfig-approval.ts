import { SELF_CONFIG_CATEGORIES, type SelfConfigCategory } from './selfconfig.ts';

// SG3: approval. An agent's `selfConfigure.approval` says, per category, whether a request that
// touches it waits for an administrator: `{default: none | required, skills?, config?,
// workspaceFiles?, envVars?}`, each category falling back to `default`, which falls back to none.
// Stored and frozen as the list of categories that need approval; rendered on the instance as
// that shape. Pure: the controller brings the instance's spec, the request's categories and time.

export const APPROVAL_MODES = ['none', 'required'] as const;
export type ApprovalMode = (typeof APPROVAL_MODES)[number];

export type ApprovalPolicy = { default?: ApprovalMode | null } & Partial<Record<SelfConfigCategory, ApprovalMode | null>>;

/** Requests wait this long for an administrator before they end Expired (OCC_SELFCONFIG_APPROVAL_TTL_SECONDS). */
export const DEFAULT_APPROVAL_TTL_SECONDS = 24 * 60 * 60;

const mode = (value: unknown): ApprovalMode | null => (value === 'none' || value === 'required' ? value : null);

/** The categories a policy requires approval for, in SELF_CONFIG_CATEGORIES order (anything not an object requires none). */
export function requiredCategories(policy: ApprovalPolicy | null | undefined): SelfConfigCategory[] {
  return SELF_CONFIG_CATEGORIES.filter((c) => (mode(policy?.[c]) ?? mode(policy?.default)) === 'required');
}

/** The instance's `spec.selfConfigure.approval` for a list of categories that need approval. */
export function approvalSpec(required: readonly string[]): Record<string, ApprovalMode> {
  if (SELF_CONFIG_CATEGORIES.every((c) => required.includes(c))) return { default: 'required' };
  const out: Record<string, ApprovalMode> = { default: 'none' };
  for (const c of SELF_CONFIG_CATEGORIES) if (required.includes(c)) out[c] = 'required';
  return out;
}

/** The categories an instance's spec requires approval for (an absent or unknown setting is none). */
export function instanceApproval(instanceSpec: unknown): SelfConfigCategory[] {
  const spec = typeof instanceSpec === 'object' && instanceSpec !== null ? (instanceSpec as Record<string, unknown>) : {};
  const sc = typeof spec.selfConfigure === 'object' && spec.selfConfigure !== null ? (spec.selfConfigure as Record<string, unknown>) : {};
  // A string or a number has no category keys: requiredCategories reads none from it.
  return requiredCategories(sc.approval as ApprovalPolicy | null | undefined);
}

/** SG3: the categories of a request that need approval on this instance; empty when it applies as is. */
export function approvalNeeded(categories: readonly SelfConfigCategory[], instanceSpec: unknown): SelfConfigCategory[] {
  const required = instanceApproval(instanceSpec);
  return categories.filter((c) => required.includes(c));
}

/** When a request waiting since `since` expires. */
export function approvalExpiresAt(since: Date, ttlMs: number): Date {
  return new Date(since.getTime() + ttlMs);
}
