/**
 * The config folder's ACL on Windows: set with icacls, then read back. The config holds the
 * agent token and the database password, so the folder must end readable by Administrators
 * (S-1-5-32-544) and SYSTEM (S-1-5-18) only, nothing inherited from its parent.
 *
 * Read back with `icacls <dir> /save <file>`, which writes the DACL as SDDL (SIDs and rights as
 * codes), the same in every Windows language, where `icacls <dir>` prints localized account
 * names ("BUILTIN\Administradores"). An icacls that exits 0 and changes nothing (Wine's does
 * exactly that) is caught here, and so is an ACE someone added by hand before the install.
 */

/** icacls' arguments: inheritance removed, full control for Administrators and SYSTEM, for the folder and all it holds. */
export const secureFolderArgs = (dir: string) => [dir, '/inheritance:r', '/grant:r', '*S-1-5-32-544:(OI)(CI)F', '/grant:r', '*S-1-5-18:(OI)(CI)F'];

/** icacls' arguments that save the folder's DACL to `file`. */
export const saveAclArgs = (dir: string, file: string) => [dir, '/save', file];

const ALLOWED: Record<string, string> = { BA: 'Administrators', 'S-1-5-32-544': 'Administrators', SY: 'SYSTEM', 'S-1-5-18': 'SYSTEM' };
const FULL_CONTROL = new Set(['FA', '0X1F01FF']);

/** The SDDL of a file `icacls /save` wrote (UTF-16 on Windows): its second line. */
export function sddlOfSavedAcl(bytes: Buffer): string | undefined {
  const utf16 = bytes.length > 1 && (bytes[1] === 0 || (bytes[0] === 0xff && bytes[1] === 0xfe));
  const text = bytes.toString(utf16 ? 'utf16le' : 'utf8').replace(/^\uFEFF/, '');
  return text.split(/\r?\n/).find((line) => line.startsWith('D:'));
}

/**
 * Why the DACL `sddl` is not the one the installer set, or undefined when it is: protected from
 * inheritance, and only full control for Administrators and SYSTEM, to the folder and what it holds.
 */
export function configAclProblem(sddl: string | undefined): string | undefined {
  if (!sddl) return 'icacls saved no ACL to read back';
  const match = /^D:([A-Z]*)((?:\([^)]*\))*)$/.exec(sddl.trim());
  if (!match) return `the ACL read back is not SDDL: ${sddl}`;
  if (!match[1]!.includes('P')) return `the folder still inherits its parent's permissions (${sddl})`;
  const granted = new Set<string>();
  for (const [, ace] of match[2]!.matchAll(/\(([^)]*)\)/g)) {
    const [type, flags = '', rights = '', , , sid = ''] = ace!.split(';');
    const who = ALLOWED[sid.toUpperCase()];
    const inherits = flags.includes('OI') && flags.includes('CI') && !flags.includes('IO');
    if (type !== 'A' || who === undefined || flags.includes('ID') || !inherits || !FULL_CONTROL.has(rights.toUpperCase()))
      return `the folder also has the entry (${ace}), beyond full control for Administrators and SYSTEM (${sddl})`;
    granted.add(who);
  }
  const missing = ['Administrators', 'SYSTEM'].filter((who) => !granted.has(who));
  return missing.length > 0 ? `${missing.join(' and ')} not granted full control (${sddl})` : undefined;
}
