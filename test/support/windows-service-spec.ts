/** The service spec the installer derives (upgrade.ts), for tests that render or drive the Windows adapter. */
import path from 'node:path';
import type { ServiceSpec } from '../../src/agent/installer/service-manager.js';

/** For a prefix and a config, with the default download folder beside the config. */
export const serviceSpecAt = (prefix: string, config: string, node: string, paths: path.PlatformPath = path): ServiceSpec => ({
  name: 'branch-agent',
  prefix,
  config,
  node,
  logDir: paths.join(prefix, 'logs'),
  downloadDir: paths.join(paths.dirname(config), 'downloads'),
});

/** Windows' defaults (service-command.ts), with the release's own node.exe. */
export const WINDOWS_SPEC = serviceSpecAt(
  'C:\\Program Files\\branch-agent',
  'C:\\ProgramData\\branch-agent\\config.json',
  'C:\\Program Files\\branch-agent\\current\\runtime\\node.exe',
  path.win32,
);
