/**
 * Writes a fake's answer to the socket by hand, frame by frame, with the
 * scripted faults: a stall after N frames, a reset (socket destroyed, no
 * clean end) after N frames, a one-byte slow drip, and writes split at
 * arbitrary byte offsets, including inside a UTF-8 character and inside a
 * `data:` line. The frames are the vendor's (SSE events, NDJSON lines, one
 * JSON body); which faults rewrite them (an error event, a malformed frame,
 * a missing terminator) is `applyFrameFaults`, shared by the three fakes.
 */
import type { ServerResponse } from 'node:http';
import type { StreamFaults } from './script.js';

export interface VendorFrames {
  /** The vendor's in-stream error frame (Anthropic `event: error`, OpenAI `{error}` chunk, Ollama `{"error"}` line). */
  errorFrame(type: string, message: string): Buffer;
  /** A frame whose JSON is cut short, keeping the framing around it (so the JSON parser, not the framer, fails). */
  malform(frame: Buffer): Buffer;
}

/** Rewrites the frame list for the faults that change content; the rest are timing, done by `writeFrames`. */
export function applyFrameFaults(frames: Buffer[], faults: StreamFaults | undefined, vendor: VendorFrames): Buffer[] {
  let out = [...frames];
  if (faults?.omitTerminator) out = out.slice(0, -1);
  if (faults?.malformedFrame !== undefined && faults.malformedFrame < out.length) out[faults.malformedFrame] = vendor.malform(out[faults.malformedFrame]!);
  if (faults?.errorAfterFrames) out = [...out.slice(0, faults.errorAfterFrames.frames), vendor.errorFrame(faults.errorAfterFrames.type, faults.errorAfterFrames.message)];
  return out;
}

/** Cuts `{"a":1,...}` to its first half, keeping a trailing `\n\n` or `\n` so framing stays intact. */
export function truncateJsonInFrame(frame: Buffer, jsonStart: number): Buffer {
  const text = frame.toString('utf8');
  const tail = text.endsWith('\n\n') ? '\n\n' : text.endsWith('\n') ? '\n' : '';
  const json = text.slice(jsonStart, text.length - tail.length);
  return Buffer.from(text.slice(0, jsonStart) + json.slice(0, Math.max(1, Math.floor(json.length / 2))) + tail, 'utf8');
}

export interface WriteControl {
  /** Resolves when the client has gone away; every wait races it, so a closed socket stops the writer at once. */
  readonly closed: Promise<void>;
  /** Timers still pending when the fake is closed are cleared through this. */
  readonly timers: Set<NodeJS.Timeout>;
  /** Called once, just after the first body bytes are handed to the socket. */
  readonly onFirstWrite?: () => void;
}

export async function writeFrames(res: ServerResponse, frames: readonly Buffer[], faults: StreamFaults | undefined, control: WriteControl): Promise<void> {
  const bytes = Buffer.concat(frames);
  const boundaries: number[] = [0];
  for (const frame of frames) boundaries.push(boundaries.at(-1)! + frame.length);
  const stallAt = faults?.stallAfterFrames && faults.stallAfterFrames.frames <= frames.length ? boundaries[faults.stallAfterFrames.frames]! : -1;
  const resetAt = faults?.resetAfterFrames !== undefined && faults.resetAfterFrames <= frames.length ? boundaries[faults.resetAfterFrames]! : -1;

  const cuts = new Set<number>(boundaries);
  const split = faults?.split;
  if (faults?.dripMs !== undefined) for (let i = 0; i < bytes.length; i++) cuts.add(i);
  else if (isOffsets(split)) for (const offset of split) cuts.add(offset);
  else if (split) for (let i = 0; i < bytes.length; i += Math.max(1, split.pieceBytes)) cuts.add(i);
  const offsets = [...cuts].filter((n) => n >= 0 && n <= bytes.length).sort((a, b) => a - b);

  res.socket?.setNoDelay(true);
  let closed = false;
  void control.closed.then(() => (closed = true));
  for (let k = 0; k < offsets.length; k++) {
    const start = offsets[k]!;
    if (closed) return;
    if (start === resetAt) return void res.socket?.resetAndDestroy();
    if (start === stallAt) await wait(faults!.stallAfterFrames!.ms, control);
    if (closed) return;
    const end = offsets[k + 1];
    if (end === undefined) break;
    res.write(bytes.subarray(start, end));
    if (k === 0) control.onFirstWrite?.();
    // A pause between writes, so each piece reaches the client as its own read.
    await wait(faults?.dripMs ?? 0, control);
  }
  if (!closed) res.end();
}

function isOffsets(split: StreamFaults['split']): split is readonly number[] {
  return Array.isArray(split);
}

export function wait(ms: number, control: WriteControl): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      control.timers.delete(timer);
      resolve();
    }, ms);
    control.timers.add(timer);
    void control.closed.then(() => {
      clearTimeout(timer);
      control.timers.delete(timer);
      resolve();
    });
  });
}
