/** Small display helpers. */
export const short = (id: string, keep = 12) => (id.length > keep + 4 ? `${id.slice(0, keep)}…` : id);

/** A body's first line of text, for a row. */
export function summary(body: Record<string, unknown>): string {
  for (const key of ['goal', 'text', 'message', 'summary', 'question', 'title', 'name']) {
    const value = body[key];
    if (typeof value === 'string' && value) return value.slice(0, 160);
  }
  const type = body['type'];
  if (typeof type === 'string') return type;
  const json = JSON.stringify(body);
  return json.length > 160 ? `${json.slice(0, 160)}…` : json;
}
