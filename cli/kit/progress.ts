/**
 * One self-rewriting progress line on stderr for `loom data put|get`: bytes
 * done of total, percent, rate and time left. Only when stderr is a terminal
 * (a log or a pipe gets nothing), and at most 10 redraws a second.
 */

export interface TransferProgress {
  /** `done` bytes of the total are transferred. */
  update(done: number): void;
  /** Draws the last state and ends the line. */
  finish(): void;
}

const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
const REDRAW_MS = 100;

export function formatBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${bytes} B` : `${value.toFixed(1)} ${UNITS[unit]}`;
}

function formatDuration(seconds: number): string {
  const s = Math.round(seconds);
  const pad = (n: number) => String(n).padStart(2, '0');
  return s >= 3600 ? `${Math.floor(s / 3600)}:${pad(Math.floor(s / 60) % 60)}:${pad(s % 60)}` : `${Math.floor(s / 60)}:${pad(s % 60)}`;
}

/**
 * A progress line for `label` of `total` bytes. `initial` bytes were already
 * there (a resumed transfer): they count towards the percentage, not the rate.
 */
export function transferProgress(label: string, total: number, initial = 0, stream: NodeJS.WriteStream = process.stderr, now: () => number = Date.now): TransferProgress {
  if (!stream.isTTY) return { update() {}, finish() {} };
  const started = now();
  let done = initial;
  let drawn = 0;
  const draw = () => {
    drawn = now();
    const seconds = (drawn - started) / 1000;
    const rate = seconds > 0 ? (done - initial) / seconds : 0;
    const percent = total > 0 ? Math.floor((done / total) * 100) : 100;
    const eta = rate > 0 && done < total ? `  ETA ${formatDuration((total - done) / rate)}` : '';
    stream.write(`\r${label}  ${formatBytes(done)} / ${formatBytes(total)}  ${percent}%  ${formatBytes(Math.round(rate))}/s${eta}\x1b[K`);
  };
  return {
    update(value) {
      done = value;
      if (now() - drawn >= REDRAW_MS) draw();
    },
    finish() {
      draw();
      stream.write('\n');
    },
  };
}

/** A progress line for a transfer of unknown size (`loom backup`): bytes so far and the rate, on a terminal only. */
export function byteProgress(label: string, stream: NodeJS.WriteStream = process.stderr, now: () => number = Date.now): TransferProgress {
  if (!stream.isTTY) return { update() {}, finish() {} };
  const started = now();
  let done = 0;
  let drawn = 0;
  const draw = () => {
    drawn = now();
    const seconds = (drawn - started) / 1000;
    stream.write(`\r${label}  ${formatBytes(done)}  ${formatBytes(Math.round(seconds > 0 ? done / seconds : 0))}/s\x1b[K`);
  };
  return {
    update(value) {
      done = value;
      if (now() - drawn >= REDRAW_MS) draw();
    },
    finish() {
      draw();
      stream.write('\n');
    },
  };
}
