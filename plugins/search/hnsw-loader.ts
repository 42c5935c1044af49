/**
 * The HNSW vector index comes from `hnswlib-node`, an optional dependency:
 * it compiles C++ on install, so a machine without a compiler installs Loom
 * without it. It is loaded here, once, through a dynamic import whose
 * specifier tsc does not resolve, so that neither the build nor any module
 * that imports the search plugin needs the package. Without it semantic
 * search stays correct: every query scans the model's vectors exactly
 * (vector-index.ts), which is slower past the graph threshold.
 */

/** What vector-index.ts uses of hnswlib-node's `HierarchicalNSW` (inner product over unit vectors). */
export interface HnswGraph {
  initIndex(maxElements: number, m: number, efConstruction: number, randomSeed: number): void;
  readIndex(file: string): Promise<boolean>;
  writeIndex(file: string): Promise<boolean>;
  getCurrentCount(): number;
  getMaxElements(): number;
  resizeIndex(maxElements: number): void;
  addPoint(point: number[], label: number): void;
  setEf(ef: number): void;
  searchKnn(query: number[], k: number, filter?: (label: number) => boolean): { neighbors: number[]; distances: number[] };
}

export interface HnswLib {
  HierarchicalNSW: new (space: 'ip', dimensions: number) => HnswGraph;
}

export type VectorIndexLibrary = { readonly available: true; readonly lib: HnswLib } | { readonly available: false; readonly reason: string };

export const HNSW_PACKAGE = 'hnswlib-node';

/** How to turn the index on, in the words the log line, the manifest and /health use. */
export const VECTOR_INDEX_HINT = `semantic search vector index unavailable: the optional package ${HNSW_PACKAGE} is not installed (or did not build), so semantic search scans vectors exactly; to enable the HNSW index install a C++ toolchain (g++, make, python3) and run \`npm install ${HNSW_PACKAGE}\``;

/** Imports a module by name; tests pass one that fails to simulate the package missing. */
export type ModuleImporter = (specifier: string) => Promise<unknown>;

// A variable specifier: tsc leaves it unresolved, so a build without the package type-checks.
const importModule: ModuleImporter = (specifier) => import(specifier);

/** Loads hnswlib-node, or says why it is unavailable (never throws). */
export async function loadVectorIndexLibrary(importer: ModuleImporter = importModule): Promise<VectorIndexLibrary> {
  try {
    const loaded = (await importer(HNSW_PACKAGE)) as { default?: HnswLib } & Partial<HnswLib>;
    // CommonJS module: its exports arrive as the default export.
    const lib = loaded.default?.HierarchicalNSW ? loaded.default : loaded;
    if (typeof lib.HierarchicalNSW !== 'function') return { available: false, reason: `${HNSW_PACKAGE} has no HierarchicalNSW export` };
    return { available: true, lib: lib as HnswLib };
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    return { available: false, reason: typeof code === 'string' ? code : error instanceof Error ? error.message.split('\n')[0]! : String(error) };
  }
}

let shared: Promise<VectorIndexLibrary> | null = null;

/** The process's one attempt (a package installed later needs a restart). */
export function vectorIndexLibrary(): Promise<VectorIndexLibrary> {
  shared ??= loadVectorIndexLibrary();
  return shared;
}
