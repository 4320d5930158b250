'use client';

import { createContext, lazy, Suspense, useCallback, useContext, useRef, useState, type ReactNode } from 'react';
import type { Note } from './ToastList';

const ToastList = lazy(() => import('./ToastList'));
const ToastContext = createContext<(text: string) => void>(() => undefined);

/**
 * A success message after a delete, revoke or disable: the row it was about has gone, so the
 * answer needs a place of its own. The toasts are Radix's (ToastList), loaded with the first one.
 */
export function Toaster({ children }: { children: ReactNode }) {
  const [notes, setNotes] = useState<Note[]>([]);
  const [shown, setShown] = useState(false);
  const next = useRef(0);
  const show = useCallback((text: string) => {
    next.current += 1;
    const id = next.current;
    setShown(true);
    setNotes((list) => [...list, { id, text }]);
  }, []);
  const dismiss = useCallback((id: number) => setNotes((list) => list.filter((note) => note.id !== id)), []);
  return (
    <ToastContext.Provider value={show}>
      {children}
      {shown ? (
        <Suspense fallback={null}>
          <ToastList notes={notes} onDismiss={dismiss} />
        </Suspense>
      ) : null}
    </ToastContext.Provider>
  );
}

export function useToast(): (text: string) => void {
  return useContext(ToastContext);
}
