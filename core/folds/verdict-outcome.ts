/**
 * What a verdict word means, the one list for every fold: a task is approved
 * exactly when its verdict is success evidence for trust, and rejected when
 * it is failure evidence (matching ignores case and surrounding spaces).
 * Any other word is kept as the verdict and leaves the state as it is.
 */
export const SUCCESS_WORDS: readonly string[] = ['accept', 'accepted', 'approve', 'approved', 'pass', 'passed', 'success', 'succeeded'];
export const FAILURE_WORDS: readonly string[] = ['reject', 'rejected', 'fail', 'failed', 'failure', 'timeout', 'timed_out'];
const APPROVING = new Set(SUCCESS_WORDS);
const REJECTING = new Set(FAILURE_WORDS);

export function verdictOutcome(word: string): 'approved' | 'rejected' | null {
  const normal = word.trim().toLowerCase();
  if (APPROVING.has(normal)) return 'approved';
  if (REJECTING.has(normal)) return 'rejected';
  return null;
}
