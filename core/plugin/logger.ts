/** The structured logger plugins and the server write to (JSON lines by default). */
import { token } from '../di/token.js';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface Logger {
  log(level: LogLevel, message: string, fields?: Record<string, unknown>): void;
  child(fields: Record<string, unknown>): Logger;
}

export const Logger = token<Logger>('core.Logger');

const LEVELS: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/** One JSON object per line: `{time, level, msg, ...fields}`. */
export function jsonLogger(options: { level?: LogLevel; write?: (line: string) => void; fields?: Record<string, unknown> } = {}): Logger {
  const min = LEVELS[options.level ?? 'info'];
  const write = options.write ?? ((line: string) => process.stdout.write(line + '\n'));
  const base = options.fields ?? {};
  return {
    log(level, message, fields) {
      if (LEVELS[level] < min) return;
      write(JSON.stringify({ time: new Date().toISOString(), level, msg: message, ...base, ...fields }));
    },
    child(fields) {
      return jsonLogger({ ...options, fields: { ...base, ...fields } });
    },
  };
}

export const silentLogger: Logger = { log() {}, child: () => silentLogger };
