/**
 * A pass-through that fails an NDJSON stream on its first line that is not
 * JSON. The `ollama` client skips such a line with a console warning and
 * carries on (observed in test/fakes/fake-ollama.test.ts), which would drop
 * model output without a trace; with this in front, the call fails as
 * `malformed_response` instead. Bytes pass unchanged: the client still does
 * its own parsing.
 */

import { MalformedStreamError } from './malformed-stream.js';

/** `onObject` sees each parsed line (the Ollama adapter notes `{"error"}` lines there). */
export function ndjsonCheck(onObject?: (value: unknown) => void): TransformStream<Uint8Array, Uint8Array> {
  const decoder = new TextDecoder('utf-8');
  let buffer = '';
  const check = (line: string, controller: TransformStreamDefaultController<Uint8Array>): boolean => {
    if (line.trim() === '') return true;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      controller.error(new MalformedStreamError(`a stream line is not JSON (${line.length} characters)`));
      return false;
    }
    onObject?.(value);
    return true;
  };
  return new TransformStream({
    transform(chunk, controller) {
      buffer += decoder.decode(chunk, { stream: true });
      const lines = buffer.split('\n');
      buffer = lines.pop() ?? '';
      for (const line of lines) if (!check(line, controller)) return;
      controller.enqueue(chunk);
    },
    flush(controller) {
      buffer += decoder.decode();
      check(buffer, controller);
    },
  });
}
