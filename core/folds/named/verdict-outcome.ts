/**
 * What a verdict word means for a task: the same words trust counts as
 * success or failure (plugins/trust/verdict-words.ts; matching ignores case
 * and surrounding spaces), so a task is approved exactly when its verdict
 * would be success evidence and rejected when it would be failure evidence.
 * Any other word is kept as the verdict and leaves the state as it is.
 */
const APPROVING = new Set(['accept', 'accepted', 'approve', 'approved', 'pass', 'passed', 'success', 'succeeded']);
const REJECTING = new Set(['reject', 'rejected', 'fail', 'failed', 'failure', 'timeout', 'timed_out']);

export function verdictOutcome(word: string): 'approved' | 'rejected' | null {
  const normal = word.trim().toLowerCase();
  if (APPROVING.has(normal)) return 'approved';
  if (REJECTING.has(normal)) return 'rejected';
  return null;
}
