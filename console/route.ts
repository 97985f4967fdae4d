/**
 * Where the console is: in the URL's fragment (#/sucursales/…), so links, the back button and a
 * reload work without the gateway knowing the console's views. Never anything secret there.
 */
import { useEffect, useState } from 'preact/hooks';

export type Route = { view: 'branches' } | { view: 'branch'; licenseKey: string } | { view: 'rollouts' } | { view: 'rollout'; id: string };

export const href = {
  branches: '#/',
  branch: (licenseKey: string) => `#/sucursales/${encodeURIComponent(licenseKey)}`,
  rollouts: '#/actualizaciones',
  rollout: (id: string) => `#/actualizaciones/${encodeURIComponent(id)}`,
};

export function parseRoute(hash: string): Route {
  let section, id;
  try {
    [section, id] = hash.replace(/^#\/?/, '').split('/').map(decodeURIComponent);
  } catch {
    return { view: 'branches' }; // a fragment that is not valid percent-encoding
  }
  if (section === 'sucursales' && id) return { view: 'branch', licenseKey: id };
  if (section === 'actualizaciones') return id ? { view: 'rollout', id } : { view: 'rollouts' };
  return { view: 'branches' };
}

export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const changed = () => setRoute(parseRoute(location.hash));
    addEventListener('hashchange', changed);
    return () => removeEventListener('hashchange', changed);
  }, []);
  return route;
}
