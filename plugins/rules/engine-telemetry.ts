/**
 * The counters GET /v1/engine/health reports, kept in memory since start
 * (they reset on restart; the facts themselves are records).
 */
import { token } from '../../core/di/token.js';

export interface EngineError {
  readonly at: string;
  readonly context: string;
  readonly message: string;
}

export class EngineTelemetry {
  readonly startedAt = Date.now();
  permissionDenials = 0;
  permissionEvaluationErrors = 0;
  routingEvaluationErrors = 0;
  triggerFirings = 0;
  readonly triggerSuppressions = { cooldown: 0, max_concurrent: 0, causal_chain: 0, held: 0 };
  errors = 0;
  lastError: EngineError | null = null;

  error(context: string, error: unknown): void {
    this.errors++;
    this.lastError = { at: new Date().toISOString(), context, message: error instanceof Error ? error.message : String(error) };
  }
}

export const EngineTelemetryToken = token<EngineTelemetry>('rules.EngineTelemetry');
