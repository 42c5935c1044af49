/**
 * What the fold engine keeps per global fold: its state, the sequence it
 * covers and the bookkeeping its checkpoints need.
 */
import type { AnyFold } from '../folds/fold.js';

export interface GlobalFoldSlot {
  readonly fold: AnyFold;
  state: unknown;
  watermark: number;
  /** Id of the record at `watermark` (null at 0): a checkpoint's proof that the log it covers is this log. */
  anchor: string | null;
  /**
   * The watermark of its last checkpoint (the one it resumed from, else 0):
   * a start scans the log from there, whether or not the records in between
   * reached the fold, so this, not the records it applied, says how far
   * behind its checkpoint is.
   */
  savedWatermark: number;
  lastCheckpointAt: number;
  /** How long the last checkpoint took to serialise (the event loop waits for it). */
  serialiseMs: number;
  readonly watchers: Set<(value: unknown) => void>;
  /**
   * False while its checkpoint loads in the background after a start: no
   * record is applied to it and its state must not be read (FoldLoadingError).
   */
  loaded: boolean;
}
