// A small toast system: state lives in ToastProvider, toasts render into two live regions that are
// already in the prerendered HTML (a region must exist before its content changes to be announced):
// a polite one for ordinary toasts and an assertive one (role="alert") for destructive ones.
import { createContext, useCallback, useContext, useEffect, useRef, useState, type ReactNode } from 'react';
import { useTexts } from '../texts';

export type ToastVariant = 'default' | 'destructive';

export interface ToastOptions {
  title: string;
  description?: string;
  variant?: ToastVariant;
}

interface ToastEntry extends Required<ToastOptions> {
  id: number;
}

/** How long a toast stays, unless the pointer or focus is on it. */
export const TOAST_DURATION_MS = 5000;
/** One toast at a time: on a 360 px phone a stack would cover the form. */
const TOAST_LIMIT = 1;

const ToastContext = createContext<(options: ToastOptions) => void>(() => {});

export function useToast(): (options: ToastOptions) => void {
  return useContext(ToastContext);
}

export function ToastProvider({ children }: { children: ReactNode }) {
  const [toasts, setToasts] = useState<ToastEntry[]>([]);
  const nextId = useRef(0);

  const show = useCallback((options: ToastOptions) => {
    nextId.current += 1;
    const entry: ToastEntry = {
      id: nextId.current,
      title: options.title,
      description: options.description ?? '',
      variant: options.variant ?? 'default',
    };
    setToasts((current) => [...current, entry].slice(-TOAST_LIMIT));
  }, []);

  const dismiss = useCallback((id: number) => {
    setToasts((current) => current.filter((toast) => toast.id !== id));
  }, []);

  const polite = toasts.filter((toast) => toast.variant !== 'destructive');
  const assertive = toasts.filter((toast) => toast.variant === 'destructive');

  return (
    <ToastContext value={show}>
      {children}
      <div className="toaster">
        <div className="toast-region" role="status" aria-live="polite">
          {polite.map((toast) => (
            <Toast key={toast.id} toast={toast} onDismiss={dismiss} />
          ))}
        </div>
        <div className="toast-region" role="alert" aria-live="assertive">
          {assertive.map((toast) => (
            <Toast key={toast.id} toast={toast} onDismiss={dismiss} />
          ))}
        </div>
      </div>
    </ToastContext>
  );
}

function Toast({ toast, onDismiss }: { toast: ToastEntry; onDismiss: (id: number) => void }) {
  // Paused while hovered or focused, so nobody loses a message they are reading.
  const [paused, setPaused] = useState(false);
  const close = useTexts().toast.close;

  useEffect(() => {
    if (paused) return;
    const timer = window.setTimeout(() => onDismiss(toast.id), TOAST_DURATION_MS);
    return () => window.clearTimeout(timer);
  }, [paused, toast.id, onDismiss]);

  return (
    <div
      className="toast"
      data-variant={toast.variant}
      onMouseEnter={() => setPaused(true)}
      onMouseLeave={() => setPaused(false)}
      onFocus={() => setPaused(true)}
      onBlur={() => setPaused(false)}
    >
      <div className="toast-text">
        <p className="toast-title">{toast.title}</p>
        {toast.description && <p className="toast-description">{toast.description}</p>}
      </div>
      <button
        type="button"
        className="toast-close"
        aria-label={close}
        onClick={() => onDismiss(toast.id)}
      >
        <svg viewBox="0 0 16 16" width="16" height="16" aria-hidden="true" focusable="false">
          <path d="M3 3l10 10M13 3L3 13" stroke="currentColor" strokeWidth="2" strokeLinecap="round" />
        </svg>
      </button>
    </div>
  );
}
