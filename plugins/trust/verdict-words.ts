/**
 * What a verdict word means for trust. Matching ignores case and
 * surrounding spaces. Every other word (e.g. `needs_changes`, `partial`,
 * `abstain`) is no evidence either way: it is counted in the fold's
 * `unrecognized_words` statistic, and a correction by the verdict's own
 * actor can still turn it into evidence.
 */

import { FAILURE_WORDS, SUCCESS_WORDS } from '../../core/folds/verdict-outcome.js';

/** One list with the task fold (core/folds/verdict-outcome.ts), so a task is approved exactly when its verdict is success evidence. */
export { FAILURE_WORDS, SUCCESS_WORDS };

/** A verdict's current effect on its row. */
export type Outcome = typeof NO_EVIDENCE | typeof SUCCESS | typeof FAILURE | typeof CANCELLED;
/** A word that is neither success nor failure: counts nowhere. */
export const NO_EVIDENCE = 0;
export const SUCCESS = 1;
export const FAILURE = 2;
/** Withdrawn by its actor (a DO `cancels`): final, counts nowhere. */
export const CANCELLED = 3;

const MEANING = new Map<string, Outcome>([...SUCCESS_WORDS.map((w) => [w, SUCCESS] as const), ...FAILURE_WORDS.map((w) => [w, FAILURE] as const)]);

export function outcomeOfWord(word: string): typeof NO_EVIDENCE | typeof SUCCESS | typeof FAILURE {
  return (MEANING.get(word) ?? MEANING.get(word.trim().toLowerCase()) ?? NO_EVIDENCE) as typeof NO_EVIDENCE | typeof SUCCESS | typeof FAILURE;
}

export function counts(outcome: Outcome): boolean {
  return outcome === SUCCESS || outcome === FAILURE;
}
