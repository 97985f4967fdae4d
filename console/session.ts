/** Who is signed in: the key every call sends, and how to end the session (a 401 does too). */
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';

export interface Session {
  key: string;
  signOut: (message?: string) => void;
}

export const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside a signed-in view');
  return session;
}
