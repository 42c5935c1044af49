/** Media types a file may be stored and served as. */
import { LoomError } from '../../core/errors/loom-error.js';

const CONTENT_TYPE = /^[A-Za-z0-9!#$&^_.+-]{1,127}\/[A-Za-z0-9!#$&^_.+-]{1,127}(?:\s*;\s*[A-Za-z0-9!#$&^_.+-]+=(?:[A-Za-z0-9!#$&^_.+-]+|"[^"\\\r\n]*"))*$/;

export function checkContentType(value: string, field = 'content_type'): string {
  if (value.length > 255 || !CONTENT_TYPE.test(value)) throw new LoomError('INVALID_SHAPE', `${field} ${JSON.stringify(value.slice(0, 80))} is not a media type such as text/plain; charset=utf-8`);
  return value;
}
