'use client';

import { createContext, useCallback, useContext, useMemo, useRef, useState, type ReactNode } from 'react';

type Toast = { id: number; text: string };
const ToastContext = createContext<(text: string) => void>(() => undefined);

/** A success message after a delete, revoke or disable: the row it was about has gone, so the
 * answer needs a place of its own. The live region is always in the page, so it is announced. */
export function Toaster({ children }: { children: ReactNode }) {
  const [toasts, setToasts] = useState<Toast[]>([]);
  const next = useRef(0);
  const show = useCallback((text: string) => {
    next.current += 1;
    const id = next.current;
    setToasts((list) => [...list, { id, text }]);
    setTimeout(() => setToasts((list) => list.filter((t) => t.id !== id)), 8000);
  }, []);
  const value = useMemo(() => show, [show]);
  return (
    <ToastContext.Provider value={value}>
      {children}
      <div className="toasts" role="status" aria-live="polite" data-testid="toasts">
        {toasts.map((toast) => (
          <p key={toast.id} className="toast">
            <span>{toast.text}</span>
            <button
              type="button"
              className="button secondary small"
              onClick={() => setToasts((list) => list.filter((t) => t.id !== toast.id))}
            >
              <span aria-hidden="true">×</span>
              <span className="visually-hidden">Dismiss</span>
            </button>
          </p>
        ))}
      </div>
    </ToastContext.Provider>
  );
}

export function useToast(): (text: string) => void {
  return useContext(ToastContext);
}
