/** pino loggers with every secret the product handles redacted, wherever it appears. */
import pino, { type DestinationStream, type Logger } from 'pino';

export const REDACTED_PATHS = [
  'token',
  '*.token',
  'password',
  '*.password',
  '*.*.password',
  'authorization',
  '*.authorization',
  'headers["x-api-key"]',
  '*.headers["x-api-key"]',
  '*.headers.authorization',
  'apiKey',
  '*.apiKey',
  'url',
  '*.url',
];

export function createLogger(opts: { level?: string; name?: string } = {}, destination?: DestinationStream): Logger {
  return pino(
    {
      level: opts.level ?? 'info',
      name: opts.name,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    },
    destination,
  );
}
