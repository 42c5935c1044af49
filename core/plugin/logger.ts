/** The structured logger plugins and the server write to (JSON lines by default; pino-pretty's lines on a terminal). */
import { pino, type Logger as PinoLogger } from 'pino';
import { prettyFactory } from 'pino-pretty';
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
  return pinoLogger(options, destination);
}

export type LogFormat = 'json' | 'pretty';
export const LOG_FORMATS: readonly LogFormat[] = ['json', 'pretty'];

/**
 * The same records through pino's own pretty printer (pino-pretty's
 * `prettyFactory`, run in this thread so writes stay synchronous):
 * `[12:00:00.000] INFO: started` and the fields indented below. Colours only
 * when asked (a terminal). `write` receives each entry (tests).
 */
export function prettyLogger(options: { level?: LogLevel; write?: (text: string) => void; fields?: Record<string, unknown>; colorize?: boolean } = {}): Logger {
  const prettify = prettyFactory({ colorize: options.colorize ?? false, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname' });
  const stdout = options.write ? null : pino.destination({ dest: 1, sync: true });
  const out = options.write ?? ((text: string) => stdout!.write(text));
  return pinoLogger(options, { write: (line: string) => out(prettify(line)) });
}

/**
 * Pretty only for a person at a terminal: the log goes to stdout and the
 * server's own line to stderr, so both must be terminals; anything redirected
 * or collected (a file, journald, a container runtime) gets JSON lines.
 */
export function defaultLogFormat(streams: { stdout: { isTTY?: boolean }; stderr: { isTTY?: boolean } } = process): LogFormat {
  return streams.stdout.isTTY === true && streams.stderr.isTTY === true ? 'pretty' : 'json';
}

/** The logger of a format (`pretty` colours its output when stdout is a terminal). */
export function createLogger(format: LogFormat, options: { level?: LogLevel } = {}): Logger {
  return format === 'pretty' ? prettyLogger({ ...options, colorize: process.stdout.isTTY === true }) : jsonLogger(options);
}

function pinoLogger(options: { level?: LogLevel; fields?: Record<string, unknown> }, destination: { write(line: string): unknown }): Logger {
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
