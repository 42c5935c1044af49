/** A point in time, in the reader's locale; `data-time` lets screenshot tests mask it. */
export function Time({ at, timeOnly = false }: { at: string | Date; timeOnly?: boolean }) {
  const date = typeof at === 'string' ? new Date(at) : at;
  return (
    <time dateTime={date.toISOString()} data-time>
      {timeOnly ? date.toLocaleTimeString() : date.toLocaleString()}
    </time>
  );
}
