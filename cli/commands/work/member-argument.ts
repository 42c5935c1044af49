/**
 * The `<member>` of `loom run`: a member DID as typed, or the label of a
 * member the caller defined (GET /v1/self/workspace lists them), matched
 * exactly, else ignoring case. Someone else's member (an operator running
 * it) is named by its DID: labels are unique per owner only.
 */
import { CliError } from '../../../command/cli-error.js';
import { call, type ClientContext } from '../../kit/context.js';
import { didArgument } from '../../kit/options.js';

export async function resolveMember(ctx: ClientContext, text: string): Promise<string> {
  if (text.startsWith('did:')) return didArgument('<member>', text);
  const { data } = await call(ctx, ctx.client.getSelfWorkspace());
  const exact = data.assistants.filter((member) => member.label === text);
  const matches = exact.length > 0 ? exact : data.assistants.filter((member) => member.label.toLowerCase() === text.toLowerCase());
  if (matches.length === 1) return matches[0]!.did;
  if (matches.length > 1) throw new CliError(`more than one of your members is labelled "${text}" (${matches.map((m) => m.did).join(', ')}); name one by its DID`);
  // The server's code for a member it does not know, so scripts handle both spellings alike.
  throw new CliError(`ACTOR_UNKNOWN: none of the members you defined is labelled "${text}"; name a member by its DID (loom actors roster lists them)`, 1, 'ACTOR_UNKNOWN');
}
