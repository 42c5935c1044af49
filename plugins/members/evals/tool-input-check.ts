/**
 * Checks a recorded tool call's input against the tool's inputSchema from
 * the tool registry (what `tool_inputs_valid` asks). Validators are compiled
 * once per tool. A tool the instance does not know, or one whose schema does
 * not compile, cannot vouch for any input: the call fails the check.
 */
import type { TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import type { ToolRegistry } from '../tool-registry.js';

type Check = (input: unknown) => boolean;

export class ToolInputCheck {
  private readonly compiled = new Map<TSchema, Check>();

  constructor(private readonly tools: Pick<ToolRegistry, 'get'>) {}

  inputValid(tool: string, input: unknown): boolean {
    const descriptor = this.tools.get(tool);
    if (!descriptor) return false;
    let check = this.compiled.get(descriptor.inputSchema);
    if (!check) {
      try {
        const validator = Compile(descriptor.inputSchema);
        check = (value) => validator.Check(value);
      } catch {
        check = () => false;
      }
      this.compiled.set(descriptor.inputSchema, check);
    }
    return check(input);
  }
}
