/**
 * How the installer reads back what it asked Windows for: the config folder's ACL as
 * `icacls /save` writes it (SDDL, UTF-16), and the upgrade task as `schtasks /Query /XML`
 * prints it. Each way a read-back can disagree is a reason in one line.
 */
import { describe, expect, it } from 'vitest';
import { configAclProblem, sddlOfSavedAcl } from '../../src/agent/installer/windows-acl.js';
import { renderUpgradeTaskXml, taskProblem } from '../../src/agent/installer/windows-upgrade-task.js';
import { WINDOWS_SPEC } from '../support/windows-service-spec.js';

describe('the config folder ACL read back', () => {
  const saved = (sddl: string) => Buffer.from(`branch-agent\r\n${sddl}\r\n`, 'utf16le');

  it('reads the SDDL icacls /save wrote, in UTF-16 or not', () => {
    expect(sddlOfSavedAcl(saved('D:PAI(A;OICI;FA;;;BA)'))).toBe('D:PAI(A;OICI;FA;;;BA)');
    expect(sddlOfSavedAcl(Buffer.from('x\nD:P(A;OICI;FA;;;SY)\n'))).toBe('D:P(A;OICI;FA;;;SY)');
    expect(sddlOfSavedAcl(Buffer.alloc(0))).toBeUndefined();
  });

  it('holds with full control for Administrators and SYSTEM only, inheritance off', () => {
    expect(configAclProblem('D:PAI(A;OICI;FA;;;SY)(A;OICI;FA;;;BA)')).toBeUndefined();
    expect(configAclProblem('D:PAI(A;OICI;0x1f01ff;;;S-1-5-32-544)(A;OICI;FA;;;S-1-5-18)')).toBeUndefined();
  });

  it.each([
    [undefined, /saved no ACL/],
    ['D:AI(A;OICI;FA;;;SY)(A;OICI;FA;;;BA)', /still inherits/],
    ['D:PAI(A;OICI;FA;;;SY)(A;OICI;FA;;;BA)(A;OICI;FR;;;WD)', /also has the entry \(A;OICI;FR;;;WD\)/],
    ['D:PAI(A;OICI;FA;;;SY)(A;OICIID;FA;;;BA)', /also has the entry/],
    ['D:PAI(A;OICI;FR;;;SY)(A;OICI;FA;;;BA)', /also has the entry/],
    ['D:PAI(A;OICI;FA;;;BA)', /SYSTEM not granted full control/],
    ['processed 1 file', /not SDDL/],
  ])('%s: %s', (sddl, problem) => {
    expect(configAclProblem(sddl)).toMatch(problem);
  });
});

describe('the upgrade task read back', () => {
  const spec = WINDOWS_SPEC;
  const ours = renderUpgradeTaskXml(spec);

  it('holds when the scheduler shows our action as SYSTEM, by SID or by name, in UTF-16 or not', () => {
    expect(taskProblem(ours, spec)).toBeUndefined();
    expect(taskProblem(ours.replace('<UserId>S-1-5-18</UserId>', '<UserId>NT AUTHORITY\\SYSTEM</UserId>'), spec)).toBeUndefined();
    expect(taskProblem(Buffer.from(ours, 'utf16le').toString('utf8'), spec)).toBeUndefined();
  });

  it.each([
    ['', /shows no task \(it printed nothing\)/],
    ['INFO: not implemented', /shows no task/],
    [ours.replace('<UserId>S-1-5-18</UserId>', '<UserId>S-1-5-21-1-2-3-1001</UserId>'), /runs as S-1-5-21-1-2-3-1001, not SYSTEM/],
    [ours.replace('<Command>', '<Command>D:\\other\\'), /the task runs D:\\other\\/],
    [ours.replace('upgrade-request', 'uninstall'), /the task runs .* uninstall/],
  ])('%#: %s', (printed, problem) => {
    expect(taskProblem(printed, spec)).toMatch(problem);
  });
});
