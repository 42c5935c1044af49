/**
 * Where a sync pair's state outside the log lives: its peer bearer and its
 * feed cursor. A log of its own keeps them in the plugin's data directory
 * (PairFiles); a shared log keeps them in the store's slots (SharedPairKeeping),
 * so the server that leads next resumes the pair where the last one left it.
 * Reads are synchronous (the runner asks on every page): `refresh` brings one
 * pair's values into memory first.
 */
export interface PairKeeping {
  load(): Promise<void>;
  /** Reads one pair's values from their home into memory (a runner about to start here, a view). */
  refresh(pairId: string): Promise<void>;
  secret(pairId: string): string | undefined;
  /** Why a pair's secret is held but cannot be used here (sealed under another instance key), if so. */
  secretProblem?(pairId: string): string | undefined;
  setSecret(pairId: string, token: string | null): Promise<void>;
  cursor(pairId: string): string | undefined;
  /** Saved soon (debounced) and at `flush`/`close`. */
  setCursor(pairId: string, cursor: string | null): void;
  flush(): Promise<void>;
  close(): Promise<void>;
}
