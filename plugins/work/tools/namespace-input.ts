/** A file tool's namespace input; absent, the data plane picks as its routes do (the caller's only namespace grain, else `default`). */
import { Type } from 'typebox';

export const NamespaceField = Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'The namespace; default: your only namespace grant, else "default".' }));
