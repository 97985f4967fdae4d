/** The service manager adapter by name, with the settings only some of them use. */
import { backgroundProcess } from './background.js';
import type { Exec, ServiceManager, ServiceSpec } from './service-manager.js';
import { systemdService } from './systemd.js';
import { winswService } from './winsw.js';

export type ManagerKind = 'systemd' | 'winsw' | 'background';

export function chooseServiceManager(kind: ManagerKind, spec: ServiceSpec, opts: { user: string; winsw: string }, run: Exec): ServiceManager {
  switch (kind) {
    case 'systemd':
      return systemdService(spec, { user: opts.user, root: process.getuid?.() === 0 }, run);
    case 'winsw':
      return winswService(spec, { winsw: opts.winsw }, run);
    case 'background':
      return backgroundProcess(spec);
  }
}
