/**
 * The rules of an answer (spec §4.9), pure: what a decision request offers,
 * and what an answer to it chooses, or the refusal by name. The decide door
 * and the run-events door both go through `resolveChoice` before anything is
 * written, so every disallowed choice writes nothing.
 *
 * The run resumes on words, never on an id (spec §4.9): `words` is what the
 * model reads (each chosen option's label and description, or the sentence
 * a person provided), so an option id is only ever the wire handle.
 */
import { LoomError } from '../../../core/errors/loom-error.js';
import type { JsonObject } from '../../../core/records/json.js';

export interface DecisionOption {
  readonly id: string;
  readonly label: string;
  /** One line. */
  readonly description: string;
  readonly recommended: boolean;
}

/** What a request offers. */
export interface AskTerms {
  readonly options: readonly DecisionOption[];
  readonly allow_other: boolean;
  readonly multi: boolean;
}

/** An answer as the doors take it (spec §4.9). */
export interface DecideInput {
  readonly decision: string;
  readonly reason?: string | undefined;
  readonly provided_value?: string | undefined;
  readonly decisions?: readonly string[] | undefined;
}

export interface Choice {
  /** The chosen option ids, `other` among them when a sentence was provided. */
  readonly chosen: readonly string[];
  /** The provided sentence when `other` was chosen, else null. */
  readonly other: string | null;
  /** For an approve/reject ask: whether it was approved; else null. */
  readonly approved: boolean | null;
  /** What the run reads: labels and descriptions, or the provided sentence; the reason after them. Never an id. */
  readonly words: string;
}

/** The id that means "none of these: my own words" (spec §4.9); no option may carry it. */
export const OTHER = 'other';

/** What asks before options existed offer (spec §2.7: older asks offer only approve and reject). */
export const APPROVE_REJECT: readonly DecisionOption[] = [
  { id: 'approve', label: 'Approve', description: 'Go ahead.', recommended: false },
  { id: 'reject', label: 'Reject', description: 'Do not go ahead.', recommended: false },
];

/** One line: newlines and runs of blanks folded to one space, at most 300 characters. */
export function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length <= 300 ? line : `${line.slice(0, 299)}…`;
}

/** The terms a stored request body offers; a request without options is an older ask (approve, reject). */
export function termsOf(body: JsonObject): AskTerms {
  const raw = Array.isArray(body['options']) ? body['options'] : [];
  const options: DecisionOption[] = [];
  for (const option of raw) {
    if (typeof option !== 'object' || option === null || Array.isArray(option)) continue;
    const o = option as JsonObject;
    if (typeof o['id'] !== 'string' || typeof o['label'] !== 'string') continue;
    options.push({ id: o['id'], label: o['label'], description: typeof o['description'] === 'string' ? o['description'] : '', recommended: o['recommended'] === true });
  }
  const allowOther = body['allow_other'] === true;
  return { options: options.length === 0 && !allowOther ? APPROVE_REJECT : options, allow_other: allowOther, multi: body['multi'] === true };
}

/** Whether the terms are an approve/reject ask (a gated tool call, a proposal, an older ask). */
export function isApproval(terms: AskTerms): boolean {
  return terms.options.length === 2 && terms.options.some((o) => o.id === 'approve') && terms.options.some((o) => o.id === 'reject');
}

const optionWords = (option: DecisionOption): string => (option.description ? `${option.label}: ${option.description}` : option.label);

/**
 * The choice an answer makes under the terms, or the refusal by name:
 * MULTI_NOT_ALLOWED (more than one choice where `multi` is off),
 * OTHER_NOT_ALLOWED (`other` where `allow_other` is off),
 * PROVIDED_VALUE_REQUIRED (`other` without a non-blank provided_value),
 * BAD_OPTION (an id the ask does not offer). `decision` and `decisions`
 * together name the choice (`decision` first, repeats dropped).
 */
export function resolveChoice(terms: AskTerms, input: DecideInput): Choice {
  const chosen = [...new Set([input.decision, ...(input.decisions ?? [])])];
  if (chosen.length > 1 && !terms.multi) throw new LoomError('MULTI_NOT_ALLOWED', `this ask takes one choice; ${chosen.length} were sent (${chosen.join(', ')}). Nothing written`);
  const words: string[] = [];
  let other: string | null = null;
  for (const id of chosen) {
    if (id === OTHER) {
      if (!terms.allow_other) throw new LoomError('OTHER_NOT_ALLOWED', `this ask does not take an answer of your own: choose one of ${terms.options.map((o) => o.id).join(', ')}. Nothing written`);
      const value = input.provided_value?.trim() ?? '';
      if (value === '') throw new LoomError('PROVIDED_VALUE_REQUIRED', 'decision other needs provided_value: the sentence the run is to read. Nothing written');
      other = value;
      words.push(value);
      continue;
    }
    const option = terms.options.find((o) => o.id === id);
    if (!option) {
      throw new LoomError('BAD_OPTION', `${JSON.stringify(id)} is not an option of this ask (${[...terms.options.map((o) => o.id), ...(terms.allow_other ? [OTHER] : [])].join(', ')}). Nothing written`);
    }
    words.push(optionWords(option));
  }
  const reason = input.reason?.trim();
  if (reason) words.push(`Reason: ${reason}`);
  return { chosen, other, approved: isApproval(terms) && other === null ? chosen[0] === 'approve' : null, words: words.join('\n') };
}
