/** Patterns that backtrack catastrophically in `RegExp` (ReDoS corpora: OWASP, Davis et al. 2018). */
export const CATASTROPHIC_PATTERNS = [
  '^deployed (\\w|\\w)*$',
  '^(\\w|\\w)*$',
  '^(a|a)*$',
  '^(a+)+$',
  '^(a|aa)+$',
  '^(.*a){12}$',
  '^(a*)*$',
  '^([a-zA-Z]+)*$',
  '^(a|a?)+$',
  '^(\\d+)*x$',
  '^(\\s*,\\s*)*$',
  '(x+x+)+y',
  '^([a-z0-9]+\\.?)*[a-z0-9]+@$',
  '^(([a-z])+.)+[A-Z]([a-z])+$',
  '^(\\w+\\s?)*$',
] as const;
