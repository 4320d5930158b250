'use client';

import { useState } from 'react';

/**
 * A secret value is not kept on the page after a request with it did not succeed (refused, or no
 * answer): the field is emptied on purpose, and says so, while everything else typed stays.
 */
export function useValueClearedOnFailure() {
  const [cleared, setCleared] = useState(false);
  return {
    cleared,
    /** Before a submit: the note from the last one goes. */
    submitting: () => setCleared(false),
    /** The request failed: empty the value field. */
    failed: (field: HTMLInputElement | null | undefined) => {
      if (field) field.value = '';
      setCleared(true);
    },
  };
}

export function ValueClearedNote({ id }: { id: string }) {
  return (
    <p id={id} className="hint" role="status" data-testid="value-cleared">
      The value was cleared because the request did not succeed: it is not kept on the page. Type it again.
    </p>
  );
}
