import { randomUUID } from 'node:crypto';
import { makeId, type IdKind } from '@occ/domain/ids';

export function newId(kind: IdKind): string {
  return makeId(kind, randomUUID());
}
