/** The six data types (spec §2.1). `SCALAR` is the usual default. */
export const DATA_TYPES = ['SCALAR', 'FORMULA', 'DISTRIBUTION', 'REFERENCE', 'MORPHISM', 'VOID'] as const;

export type DataType = (typeof DATA_TYPES)[number];

const dataTypeSet: ReadonlySet<string> = new Set(DATA_TYPES);

export function isDataType(value: unknown): value is DataType {
  return typeof value === 'string' && dataTypeSet.has(value);
}
