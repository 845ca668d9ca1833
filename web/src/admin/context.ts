import { createContext, useContext } from 'react';
import type { Client, Role } from './api';

export interface Inbox {
  /** The signed-in operator's e-mail. */
  email: string;
  /** What the signed-in account may do: admins also export, erase and manage the team. */
  role: Role;
  client: Client;
  /** The signed-in account's own session is over (its role changed, or it was removed): to the login. */
  expire: () => void;
  /** Shows `text` in the inbox's status line while the page at `path` is open. */
  notify: (text: string, path: string) => void;
}

export const InboxContext = createContext<Inbox | null>(null);

export function useInbox(): Inbox {
  const inbox = useContext(InboxContext);
  if (!inbox) throw new Error('useInbox outside <InboxContext>');
  return inbox;
}
