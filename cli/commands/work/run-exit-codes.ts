/**
 * The exit status of a command that follows a run to its end (`loom run`,
 * `loom work loop`, `loom runs tail`): 0 when the run completed, else one
 * code per outcome, so a script can tell "ran out of turns" from "was
 * cancelled" without parsing output. 1 and 2 keep their meaning across the
 * CLI (a refusal or an unreachable server; a usage error) and 3 is taken by
 * the verifying commands (a fold or run that does not match its records).
 */
export const RUN_EXIT_CODES = {
  completed: 0,
  failed: 4,
  cancelled: 5,
  blocked: 6,
  max_turns: 7,
  budget_exhausted: 8,
  guardrail_halt: 9,
} as const;

/** An outcome this CLI does not know (a newer server): not a success. */
export const UNKNOWN_OUTCOME_EXIT = 10;

/** A second Ctrl-C: quit at once, without waiting for the outcome (128 + SIGINT, as shells report it). */
export const INTERRUPTED_EXIT = 130;

export function exitCodeOf(outcome: string): number {
  return Object.prototype.hasOwnProperty.call(RUN_EXIT_CODES, outcome) ? RUN_EXIT_CODES[outcome as keyof typeof RUN_EXIT_CODES] : UNKNOWN_OUTCOME_EXIT;
}

const c = RUN_EXIT_CODES;

/** The table `--help` shows (its second line indented by two, as usage texts are). */
export const RUN_EXIT_HELP = `exit status: 0 completed, ${c.failed} failed, ${c.cancelled} cancelled, ${c.blocked} blocked, ${c.max_turns} max_turns, ${c.budget_exhausted} budget_exhausted,
  ${c.guardrail_halt} guardrail_halt, ${UNKNOWN_OUTCOME_EXIT} another outcome; 1 refused or unreachable, 2 usage, ${INTERRUPTED_EXIT} quit by Ctrl-C.`;
