/**
 * One cache of compiled CEL programs for the whole instance (spec §8:
 * capacity 1024 by default): least recently used out, each distinct
 * (context, expression) compiled once. Compile failures are counted and not
 * cached, so a corrected rule compiles on its next use.
 */
import type { Environment } from '@marcbachmann/cel-js';
import { token } from '../../../core/di/token.js';
import type { ExpressionContext } from './cel-environments.js';

export interface CompiledExpression {
  readonly context: ExpressionContext;
  readonly source: string;
  /** Runs the program; throws what the evaluator throws (an evaluation error). */
  evaluate(activation: Record<string, unknown>): unknown;
}

export interface ExpressionCacheStats {
  hits: number;
  misses: number;
  compile_errors: number;
  hit_rate_pct: number;
  avg_compile_micros: number;
  size: number;
  capacity: number;
}

/** An expression that does not compile in its context; the message names the problem. */
export class ExpressionCompileError extends Error {
  constructor(
    readonly context: ExpressionContext,
    message: string,
  ) {
    super(message);
    this.name = 'ExpressionCompileError';
  }
}

export class ExpressionCache {
  private readonly entries = new Map<string, CompiledExpression>();
  private hits = 0;
  private misses = 0;
  private compileErrors = 0;
  private compileNanos = 0n;

  constructor(
    private readonly environments: Readonly<Record<ExpressionContext, Environment>>,
    readonly capacity = 1024,
  ) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError('expression cache capacity must be a positive integer');
  }

  /** The compiled program, from the cache or compiled now; throws ExpressionCompileError. */
  compile(context: ExpressionContext, source: string): CompiledExpression {
    const key = context + '\u0000' + source;
    const cached = this.entries.get(key);
    if (cached) {
      this.hits++;
      // Re-insert: Map order is the recency order.
      this.entries.delete(key);
      this.entries.set(key, cached);
      return cached;
    }
    this.misses++;
    const started = process.hrtime.bigint();
    try {
      const compiled = this.compileUncached(context, source);
      this.entries.set(key, compiled);
      if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
      return compiled;
    } catch (error) {
      this.compileErrors++;
      throw error;
    } finally {
      this.compileNanos += process.hrtime.bigint() - started;
    }
  }

  private compileUncached(context: ExpressionContext, source: string): CompiledExpression {
    const environment = this.environments[context];
    let program: ReturnType<Environment['parse']>;
    try {
      program = environment.parse(source);
    } catch (error) {
      throw new ExpressionCompileError(context, `does not parse: ${firstLine(error)}`);
    }
    const checked = program.check();
    if (!checked.valid) throw new ExpressionCompileError(context, `does not type-check in the ${context} context: ${firstLine(checked.error)}`);
    if (checked.type !== 'bool' && checked.type !== 'dyn') throw new ExpressionCompileError(context, `yields ${checked.type}; a rule expression must yield a bool`);
    return { context, source, evaluate: (activation) => program(activation) };
  }

  /**
   * Counts a use of a program the caller already holds (rule lists keep their
   * compiled programs until the rules change), without the key lookup: a
   * permission gate evaluating ten rules per write should not pay ten.
   */
  countHit(): void {
    this.hits++;
  }

  stats(): ExpressionCacheStats {
    const lookups = this.hits + this.misses;
    return {
      hits: this.hits,
      misses: this.misses,
      compile_errors: this.compileErrors,
      hit_rate_pct: lookups === 0 ? 0 : Math.round((this.hits / lookups) * 10_000) / 100,
      avg_compile_micros: this.misses === 0 ? 0 : Math.round(Number(this.compileNanos / BigInt(this.misses)) / 10) / 100,
      size: this.entries.size,
      capacity: this.capacity,
    };
  }
}

/** The first line of an error message (cel-js appends a source excerpt on later lines). */
function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0]!.trim();
}

/** Evaluates a rule expression to a boolean; anything else is an error. */
export function evaluateCondition(expression: CompiledExpression, activation: Record<string, unknown>): boolean {
  const result = expression.evaluate(activation);
  if (typeof result !== 'boolean') throw new Error(`yielded ${result === null ? 'null' : typeof result}, not a bool`);
  return result;
}

export const ExpressionCacheToken = token<ExpressionCache>('rules.ExpressionCache');
