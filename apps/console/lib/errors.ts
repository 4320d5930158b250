// The typed error members of the mutation result unions (docs/contract-issue-2.md). Each document
// spreads the fragments of exactly the members its union has (a spread on a type outside the union is
// invalid), so the UI can tell the cases apart by __typename.
import { gql, type ResultOf } from './graphql';

export const ValidationErrorFields = gql(`fragment ValidationErrorFields on ValidationError { __typename code message field }`);
export const NotFoundErrorFields = gql(`fragment NotFoundErrorFields on NotFoundError { __typename code message }`);
export const ForbiddenErrorFields = gql(`fragment ForbiddenErrorFields on ForbiddenError { __typename code message }`);
export const ConflictErrorFields = gql(`fragment ConflictErrorFields on ConflictError { __typename code message }`);
export const NamespaceNotReadyErrorFields = gql(
  `fragment NamespaceNotReadyErrorFields on NamespaceNotReadyError { __typename code message namespaceStatus }`,
);
export const SecretInUseErrorFields = gql(
  `fragment SecretInUseErrorFields on SecretInUseError { __typename code message consumers { total hiddenCount items { kind id name } } }`,
);
export const OutcomeUnknownErrorFields = gql(`fragment OutcomeUnknownErrorFields on OutcomeUnknownError { __typename code message }`);
export const ConfigurationInUseErrorFields = gql(
  `fragment ConfigurationInUseErrorFields on ConfigurationInUseError { __typename code message agents { total hiddenCount items { id name } } }`,
);

export type ValidationError = ResultOf<typeof ValidationErrorFields>;
export type NotFoundError = ResultOf<typeof NotFoundErrorFields>;
export type ForbiddenError = ResultOf<typeof ForbiddenErrorFields>;
export type ConflictError = ResultOf<typeof ConflictErrorFields>;
export type NamespaceNotReadyError = ResultOf<typeof NamespaceNotReadyErrorFields>;
export type SecretInUseError = ResultOf<typeof SecretInUseErrorFields>;
export type OutcomeUnknownError = ResultOf<typeof OutcomeUnknownErrorFields>;
export type ConfigurationInUseError = ResultOf<typeof ConfigurationInUseErrorFields>;

export type SecretConsumers = SecretInUseError['consumers'];
export type SecretConsumer = SecretConsumers['items'][number];

export type MutationError =
  | ValidationError
  | NotFoundError
  | ForbiddenError
  | ConflictError
  | NamespaceNotReadyError
  | SecretInUseError
  | ConfigurationInUseError
  | OutcomeUnknownError;

/** True when a ValidationError is about the given input field ("name", "input.name" …). */
export function isFieldError(error: MutationError | null | undefined, field: string): boolean {
  if (error?.__typename !== 'ValidationError' || !error.field) return false;
  return error.field === field || error.field.endsWith(`.${field}`);
}
