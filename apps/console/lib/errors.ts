// The typed error members of the mutation result unions (docs/contract-issue-2.md). Each document
// selects exactly these fields, so the UI can tell the cases apart by __typename.

export type SecretConsumer = { kind: string; id: string; name: string };
export type SecretConsumers = { total: number; hiddenCount: number; items: SecretConsumer[] };

export type ValidationError = { __typename: 'ValidationError'; code: string; message: string; field: string | null };
export type NotFoundError = { __typename: 'NotFoundError'; code: string; message: string };
export type ForbiddenError = { __typename: 'ForbiddenError'; code: string; message: string };
export type ConflictError = { __typename: 'ConflictError'; code: string; message: string };
export type NamespaceNotReadyError = {
  __typename: 'NamespaceNotReadyError';
  code: string;
  message: string;
  namespaceStatus: string;
};
export type SecretInUseError = { __typename: 'SecretInUseError'; code: string; message: string; consumers: SecretConsumers };
export type OutcomeUnknownError = { __typename: 'OutcomeUnknownError'; code: string; message: string };

export type MutationError =
  | ValidationError
  | NotFoundError
  | ForbiddenError
  | ConflictError
  | NamespaceNotReadyError
  | SecretInUseError
  | OutcomeUnknownError;

/** Selection for every error member; `...on` fragments on members absent from a union are invalid, so
 * each document lists only the members its union has. */
export const errorFields = {
  ValidationError: '... on ValidationError { code message field }',
  NotFoundError: '... on NotFoundError { code message }',
  ForbiddenError: '... on ForbiddenError { code message }',
  ConflictError: '... on ConflictError { code message }',
  NamespaceNotReadyError: '... on NamespaceNotReadyError { code message namespaceStatus }',
  SecretInUseError: '... on SecretInUseError { code message consumers { total hiddenCount items { kind id name } } }',
  OutcomeUnknownError: '... on OutcomeUnknownError { code message }',
} as const;

export function selectErrors(...members: (keyof typeof errorFields)[]): string {
  return members.map((member) => errorFields[member]).join('\n');
}

/** True when a ValidationError is about the given input field ("name", "input.name" …). */
export function isFieldError(error: MutationError | null | undefined, field: string): boolean {
  if (error?.__typename !== 'ValidationError' || !error.field) return false;
  return error.field === field || error.field.endsWith(`.${field}`);
}
