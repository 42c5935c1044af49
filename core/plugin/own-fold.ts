/**
 * What `scope.fold()` hands back for a global fold: the registering plugin's
 * in-process view of its own state (a credential lookup, the dispatch
 * ledger), read without a caller. Only the owner holds it; what a caller may
 * see of any fold is answered by the record reader with that caller.
 */
export interface OwnFold<S> {
  /** The live state (read-only by convention); SERVICE_UNAVAILABLE before the engine started. */
  state(): S;
  /** The live state with the sequence it covers. */
  snapshot(): { state: S; watermark: number };
}
