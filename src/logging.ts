/** pino loggers with every secret the product handles redacted, wherever it appears. */
import pino, { type DestinationStream, type Logger } from 'pino';
import { sourceMappedStack } from './source-mapped-stacks.js';

export const REDACTED_PATHS = [
  'token',
  '*.token',
  'password',
  '*.password',
  '*.*.password',
  '*.*.*.password',
  '*.*.token',
  'authorization',
  '*.authorization',
  'headers["x-api-key"]',
  '*.headers["x-api-key"]',
  '*.headers.authorization',
  'apiKey',
  '*.apiKey',
  'connectionString',
  'natsUrl',
  '*.natsUrl',
  '*.*.natsUrl',
  'database.url',
  '*.database.url',
  '*.connectionString',
];

/**
 * A JSON logger on stdout, or on a file rotated daily and at 10 MB with the last 14 kept
 * (pino-roll, in a worker thread so writing never blocks the agent).
 */
export function createLogger(opts: { level?: string; name?: string; file?: string } = {}, destination?: DestinationStream): Logger {
  const target =
    destination ??
    (opts.file
      ? pino.transport({ target: 'pino-roll', options: { file: opts.file, frequency: 'daily', size: '10m', mkdir: true, limit: { count: 14 } } })
      : undefined);
  return pino(
    {
      // pino's own default (info) when the caller names none; the config schema declares the option's.
      ...(opts.level ? { level: opts.level } : {}),
      name: opts.name,
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      serializers: { err: serializeError },
    },
    target,
  );
}

/** pino's error serializer, with the stack pointing at the sources (source-mapped-stacks.ts). */
function serializeError(err: Error): ReturnType<typeof pino.stdSerializers.err> {
  const serialized = pino.stdSerializers.err(err);
  if (typeof serialized?.stack === 'string') serialized.stack = sourceMappedStack(serialized.stack);
  return serialized;
}
