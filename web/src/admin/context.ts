import { createContext, useContext } from 'react';
import type { Client } from './api';

export interface Inbox {
  /** The signed-in operator's e-mail. */
  email: string;
  client: Client;
  /** Shows `text` in the inbox's status line while the page at `path` is open. */
  notify: (text: string, path: string) => void;
}

export const InboxContext = createContext<Inbox | null>(null);

export function useInbox(): Inbox {
  const inbox = useContext(InboxContext);
  if (!inbox) throw new Error('useInbox outside <InboxContext>');
  return inbox;
}
