/** The structured logger plugins and the server write to (JSON lines by default). */
import { pino, type Logger as PinoLogger } from 'pino';
import { token } from '../di/token.js';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface Logger {
  log(level: LogLevel, message: string, fields?: Record<string, unknown>): void;
  child(fields: Record<string, unknown>): Logger;
}

export const Logger = token<Logger>('core.Logger');

/**
 * One JSON object per line, `{level, time, msg, ...fields}`, written by pino
 * (synchronously, so the last lines before an exit are not lost). `write`
 * sends the lines elsewhere (tests).
 */
export function jsonLogger(options: { level?: LogLevel; write?: (line: string) => void; fields?: Record<string, unknown> } = {}): Logger {
  const destination = options.write ? { write: (line: string) => options.write!(line.replace(/\n$/, '')) } : pino.destination({ dest: 1, sync: true });
  const root = pino(
    {
      level: options.level ?? 'info',
      base: undefined,
      messageKey: 'msg',
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    destination,
  );
  return wrap(options.fields ? root.child(options.fields) : root);
}

function wrap(instance: PinoLogger): Logger {
  return {
    log(level, message, fields) {
      if (fields) instance[level](fields, message);
      else instance[level](message);
    },
    child(fields) {
      return wrap(instance.child(fields));
    },
  };
}

export const silentLogger: Logger = { log() {}, child: () => silentLogger };
