/**
 * Trust a member earns the ordinary way, over HTTP: per task a requester's
 * INTEND (with its domain), the member's completion claim (written acting
 * as the member), and a judge's verdict on the claim.
 */
import { expect } from 'chai';
import { bearer, type Credential } from '../helpers/auth.js';
import { newThread, request } from '../helpers/http-server.js';

export interface TrustPlan {
  readonly domain: string;
  readonly accepts: number;
  readonly rejects: number;
}

/** `judge` asks and judges; `actingAsMember` is a credential allowed to write as `member`. */
export async function earnTrust(url: string, judge: Credential, actingAsMember: Credential, member: string, plan: TrustPlan): Promise<void> {
  const words = [...Array<string>(plan.accepts).fill('accept'), ...Array<string>(plan.rejects).fill('reject')];
  for (const word of words) {
    const thread = newThread('earn');
    const post = async (who: Credential, actor: string, record: Record<string, unknown>) => {
      const answer = await request(url, 'POST', '/v1/records', { headers: { ...bearer(who), ...(actor === who.did ? {} : { 'x-service-actor': actor }) }, json: { thread, actor, data_type: 'SCALAR', parents: [], ...record } });
      expect(answer.status, answer.text).to.equal(201);
      return answer.json.id as string;
    };
    const intend = await post(judge, judge.did, { act: 'INTEND', clock: 0, body: { task: true, goal: 'review it', domain: plan.domain } });
    const claim = await post(actingAsMember, member, { act: 'KNOW', clock: 0, body: { fulfills: intend, summary: 'done' } });
    await post(judge, judge.did, { act: 'KNOW', clock: 1, body: { fulfills: claim, verdict: word }, judged_by: claim });
  }
}
