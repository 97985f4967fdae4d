/** An IPv4 or IPv6 address, alone or with a prefix length (10.0.0.0/8, fd00::/8): what proxy-addr takes. */
import { isIP } from 'node:net';

export function isAddressOrCidr(value: string): boolean {
  const [address = '', prefix, ...rest] = value.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}
