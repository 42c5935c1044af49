/**
 * `loom trust`, `loom actors`, `loom fold` and `loom graph` against a real
 * server: the built CLI runs as a child process over a small log (a task on
 * thread A assigned to bob, his claim and two verdicts; thread B where bob
 * and the reviewer both write). Each command's --json is the server's answer
 * as is, its human output shows the same figures, and a bad argument is
 * refused naming what was typed. `fold --verify` is also run through a proxy
 * that alters the fold's value, as a dishonest server would.
 */
import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliExpectations, runLoom, type CliRun } from '../helpers/cli-run.js';
import { get, newThread, request } from '../helpers/http-server.js';
import { startServer, type StartedServer } from '../helpers/start-server.js';
import { tamperingProxy } from '../helpers/tampering-proxy.js';


const LEAD = 'did:sync:user:lead';
const BOB = 'did:sync:agent:bob';
const REVIEWER = 'did:sync:user:reviewer';
const AUDITOR = 'did:sync:user:auditor';

describe('loom trust, actors, fold and graph commands', function () {
  this.timeout(60_000);
  let server: StartedServer;
  let root: string;
  let config: string;
  const A = newThread('insight-a');
  const B = newThread('insight-b');
  const ids: Record<string, string> = {};
  const clocks = new Map<string, number>();

  /** Runs the CLI against `url` (the server unless given) with an empty config file and no token. */
  const loom = (args: string[], url: string = server.url): Promise<CliRun> => runLoom(args, { url, config });
  const { json, human, refused } = cliExpectations((args: string[]) => loom(args));
  async function served(path: string): Promise<any> {
    const answer = await get(server.url, path);
    expect(answer.status, answer.text).to.equal(200);
    return answer.json;
  }

  const write = async (name: string, thread: string, actor: string, act: string, body: Record<string, unknown>, judged_by: string | null = null) => {
    const clock = (clocks.get(`${actor} ${thread}`) ?? -1) + 1;
    clocks.set(`${actor} ${thread}`, clock);
    const answer = await request(server.url, 'POST', '/v1/records', { json: { parents: [], thread, actor, act, body, clock, data_type: 'SCALAR', judged_by } });
    expect(answer.status, answer.text).to.equal(201);
    ids[name] = answer.json.id;
  };

  before(async () => {
    server = await startServer();
    root = await mkdtemp(join(tmpdir(), 'loom-insight-cli-'));
    config = join(root, 'config.json');
    await write('task', A, LEAD, 'INTEND', { task: true, goal: 'ship the parser', assigned_to: BOB, domain: 'code' });
    await write('claim', A, BOB, 'KNOW', { fulfills: ids['task'], summary: 'parser shipped' });
    await write('accept', A, REVIEWER, 'KNOW', { fulfills: ids['claim'], verdict: 'accept' }, ids['claim']!);
    await write('reject', A, AUDITOR, 'KNOW', { fulfills: ids['claim'], verdict: 'reject' }, ids['claim']!);
    await write('plan', B, BOB, 'INTEND', { goal: 'plan B' });
    await write('step', B, REVIEWER, 'DO', { note: 'on it' });
  });

  after(async () => {
    await server?.stop();
    if (root) await rm(root, { recursive: true, force: true });
  });

  describe('loom trust', () => {
    it('lists a row per (worker, domain, judge) with the server\'s figures; --json is the server\'s list', async () => {
      const list = await json(['trust']);
      expect(list).to.include({ object: 'list', has_more: false, half_life_days: 90 });
      expect(list.data.map((r: any) => [r.actor, r.domain, r.judged_by, r.successes, r.failures])).to.deep.equal([
        [BOB, 'code', REVIEWER, 1, 0],
        [BOB, 'code', AUDITOR, 0, 1],
      ]);
      const [accepted, rejected] = list.data;
      expect(accepted.score).to.be.closeTo(0.2065, 1e-4); // Wilson lower bound of 1 out of 1

      const text = await human(['trust']);
      const lines = text.trimEnd().split('\n');
      expect(lines[0]).to.match(/^actor\s+domain\s+judged by\s+score\s+successes\s+failures\s+weighted\s+last verdict$/);
      expect(lines[1]!.split(/\s+/)).to.deep.equal([BOB, 'code', REVIEWER, accepted.score.toFixed(4), '1', '0', '1/1', accepted.last_verdict_at]);
      expect(lines[2]!.split(/\s+/)).to.deep.equal([BOB, 'code', AUDITOR, '0.0000', '0', '1', '0/1', rejected.last_verdict_at]);
      expect(lines[3]).to.match(/^as of \S+, half-life 90 days, watermark 6; verdicts 2 \(in force 2, self-judged 0, unattributed 0, unrecognized words 0\)$/);
    });

    it('--group actor_domain puts every judge together; --judged-by, --actor and --limit reach the server', async () => {
      const [grouped, groupedText, byAuditor, ofReviewer, ofReviewerText, page, pageText, rest] = await Promise.all([
        json(['trust', '--group', 'actor_domain']),
        human(['trust', '--group', 'actor_domain']),
        json(['trust', '--judged-by', AUDITOR]),
        json(['trust', '--actor', REVIEWER]),
        human(['trust', '--actor', REVIEWER]),
        json(['trust', '--limit', '1']),
        human(['trust', '--limit', '1']),
        json(['trust', '--after', '1']),
      ]);
      expect(grouped.data).to.have.length(1);
      expect(grouped.data[0]).to.include({ actor: BOB, judged_by: null, judges: 2, successes: 1, failures: 1 });
      expect(groupedText).to.match(new RegExp(`\\n${BOB}\\s+code\\s+all \\(2\\)\\s+${grouped.data[0].score.toFixed(4)}\\s+1\\s+1\\s+1/2\\s`));
      expect(byAuditor.data.map((r: any) => r.judged_by)).to.deep.equal([AUDITOR]);
      expect(ofReviewer.data).to.deep.equal([]);
      expect(ofReviewerText).to.match(/^no trust scores\nas of /);
      expect(page).to.include({ has_more: true, next_cursor: '1' });
      expect(pageText).to.contain('\n… more: --after 1\n');
      expect(rest.data.map((r: any) => r.judged_by)).to.deep.equal([AUDITOR]);
    });

    it('trust principals shows each person\'s merged scores', async () => {
      const answer = await json(['trust', 'principals']);
      expect(answer).to.include({ fold_name: 'principal_trust', watermark: 6 });
      expect(answer.value.rows.map((r: any) => [r.principal, r.domain, r.dids, r.judges])).to.deep.equal([[BOB, 'code', [BOB], 2]]);
      const lines = (await human(['trust', 'principals'])).trimEnd().split('\n');
      expect(lines[0]).to.match(/^principal\s+domain\s+score\s+successes\s+failures\s+judges\s+dids$/);
      expect(lines[1]!.split(/\s+/)).to.deep.equal([BOB, 'code', answer.value.rows[0].score.toFixed(4), '1', '1', '2', BOB]);
      expect(lines[2]).to.match(/^as of \S+, half-life 90 days, watermark 6$/);
    });

    it('refuses a malformed DID, an unknown grouping and list options on principals, naming them', async () => {
      const [actor, judge, group, limit, principals, positional] = await Promise.all([
        refused(['trust', '--actor', 'bob'], 2),
        refused(['trust', '--judged-by', 'did:sync:robot:x'], 2),
        refused(['trust', '--group', 'everyone'], 2),
        refused(['trust', '--limit', '0'], 2),
        refused(['trust', 'principals', '--domain', 'code'], 2),
        refused(['trust', BOB], 2),
      ]);
      expect(actor).to.match(/^loom: --actor "bob" is not a DID: /);
      expect(judge).to.contain('--judged-by "did:sync:robot:x" is not a DID');
      expect(group).to.contain('--group must be one of judge, actor_domain (got "everyone")');
      expect(limit).to.contain('--limit must be an integer of at least 1');
      expect(principals).to.contain('--domain applies to loom trust only');
      expect(positional).to.contain(`for one worker: loom trust --actor ${BOB}`);
    });
  });

  describe('loom actors', () => {
    it('lists the actors in DID order with counts; --kind filters; --limit pages with --after', async () => {
      const list = await json(['actors']);
      expect(list).to.deep.equal(await served('/v1/actors'));
      expect(list.data.map((a: any) => [a.did, a.kind, a.record_count, a.thread_count])).to.deep.equal([
        [BOB, 'agent', 2, 2],
        [LEAD, 'user', 1, 1],
        [AUDITOR, 'user', 1, 1],
        [REVIEWER, 'user', 2, 2],
      ].sort((x, y) => (x[0]! < y[0]! ? -1 : 1)));
      const lines = (await human(['actors'])).trimEnd().split('\n');
      expect(lines[0]).to.match(/^actor\s+kind\s+records\s+threads\s+first seen\s+last seen$/);
      expect(lines.slice(1).map((line) => line.split(/\s+/))).to.deep.equal(list.data.map((a: any) => [a.did, a.kind, String(a.record_count), String(a.thread_count), a.first_seen.at, a.last_seen.at]));
      const [agents, users, page, pageText, next] = await Promise.all([
        json(['actors', '--kind', 'agent']),
        json(['actors', 'list', '--kind', 'user']),
        json(['actors', '--limit', '1']),
        human(['actors', '--limit', '1']),
        json(['actors', '--after', BOB, '--limit', '1']),
      ]);
      expect(agents.data.map((a: any) => a.did)).to.deep.equal([BOB]);
      expect(users.data).to.have.length(3);
      expect(page).to.include({ has_more: true, next_cursor: BOB });
      expect(pageText).to.match(new RegExp(`\\n… more: --after ${BOB}\\n$`));
      expect(next.data.map((a: any) => a.did)).to.deep.equal([list.data[1].did]);
    });

    it('show: first and last seen, records by act, domains, trust by domain and recent threads', async () => {
      const detail = await json(['actors', 'show', BOB]);
      expect(detail).to.deep.equal(await served(`/v1/actors/lookup?did=${encodeURIComponent(BOB)}`));
      expect(detail).to.deep.include({ did: BOB, record_count: 2, assigned_tasks: 1, by_act: { INTEND: 1, KNOW: 1 }, domains: { code: 1 } });
      expect(detail.trust.code.total).to.equal(2);
      const text = await human(['actors', 'show', BOB]);
      expect(text).to.equal(
        `${BOB} (agent)\n` +
          `  first seen  ${detail.first_seen.at} (sequence ${detail.first_seen.sequence})\n` +
          `  last seen   ${detail.last_seen.at} (sequence 5)\n` +
          '  records     2 on 2 threads: INTEND 1, KNOW 1\n' +
          '  assigned    1 task\n' +
          '  domains     code 1\n' +
          `  trust       code ${detail.trust.code.score} (2 verdicts)\n` +
          '\nthreads, most recent first:\n' +
          'thread' + ' '.repeat(B.length - 'thread'.length) + '  records  last sequence\n' +
          `${B}  1        5\n` +
          `${A}  1        2\n`,
      );
    });

    it('refuses a malformed DID before asking, and names an unknown actor', async () => {
      const [malformed, unknown, bare, foreign, missing] = await Promise.all([
        refused(['actors', 'show', 'bob'], 2),
        refused(['actors', 'show', 'did:sync:user:nobody'], 1),
        refused(['actors', BOB], 2),
        refused(['actors', 'show', BOB, '--kind', 'user'], 2),
        refused(['actors', 'show'], 2),
      ]);
      expect(malformed).to.match(/^loom: the actor "bob" is not a DID: must be a DID of the form/);
      expect(unknown).to.match(/^loom: ACTOR_UNKNOWN \(404\): .*did:sync:user:nobody/);
      expect(bare).to.contain(`to look this actor up: loom actors show ${BOB}`);
      expect(foreign).to.contain('--kind applies to loom actors list only');
      expect(missing).to.contain('loom actors show takes one DID');
    });
  });

  describe('loom fold', () => {
    it('list: every registered fold with its scope', async () => {
      const list = await json(['fold', 'list']);
      expect(list).to.deep.equal(await served('/v1/folds'));
      const text = await human(['fold', 'list']);
      expect(text).to.match(/^fold\s+scope\s+description\n/);
      expect(text).to.match(/\nthread_state\s+thread\s+Participants/);
      expect(text).to.match(/\ntask_list\s+global\s+Every task INTEND/);
      expect(text.trimEnd().split('\n')).to.have.length(list.data.length + 1 + (list.system_threads.length > 0 ? 1 : 0));
    });

    it('prints a global or a thread fold\'s value as JSON; --json prints the whole answer', async () => {
      const [answer, text, state, stateText] = await Promise.all([json(['fold', 'task_list']), human(['fold', 'task_list']), json(['fold', 'thread_state', A]), human(['fold', 'thread_state', A])]);
      expect(answer).to.deep.equal(await served('/v1/folds/task_list'));
      expect(answer.value.tasks.map((t: any) => [t.id, t.state])).to.deep.equal([[ids['task'], 'rejected']]);
      expect(text).to.equal(JSON.stringify(answer.value, null, 2) + '\n');
      expect(state).to.include({ fold_name: 'thread_state', watermark: 4 });
      expect(JSON.parse(stateText)).to.deep.equal(state.value);
      expect(state.value.participants).to.deep.equal([LEAD, BOB, REVIEWER, AUDITOR]);
    });

    it('refuses an unknown fold, a malformed name and a key on a global fold, naming them', async () => {
      const [unknown, malformed, keyed, missing, list] = await Promise.all([
        refused(['fold', 'nope'], 1),
        refused(['fold', 'Task-List'], 2),
        refused(['fold', 'task_list', A], 1),
        refused(['fold'], 2),
        refused(['fold', 'list', '--verify'], 2),
      ]);
      expect(unknown).to.match(/^loom: NOT_FOUND \(404\): no fold named "nope" \(folds: .*task_list/);
      expect(malformed).to.contain('"Task-List" is not a fold name');
      expect(keyed).to.contain('fold task_list is global');
      expect(missing).to.contain('a fold name is required');
      expect(list).to.contain('--verify applies to a fold');
    });

    it('--verify recomputes the value from the records it covers', async () => {
      const [global, thread, checked, timed, keyless] = await Promise.all([
        human(['fold', 'task_list', '--verify']),
        human(['fold', 'thread_state', A, '--verify']),
        json(['fold', 'frame', B, '--verify']),
        refused(['fold', 'trust', '--verify'], 2),
        refused(['fold', 'turn', '--verify'], 2),
      ]);
      expect(global).to.equal('verified: task_list at watermark 6 over 6 records\n');
      expect(thread).to.equal(`verified: thread_state/${A} at watermark 4 over 4 records\n`);
      expect(checked).to.include({ ok: true, fold_name: 'frame', key: B, records: 2 });
      expect(checked.differences).to.deep.equal([]);
      expect(checked.server_value).to.deep.equal(checked.local_value);
      expect(timed).to.match(/^loom: fold trust cannot be verified: .*depend on the time/);
      expect(keyless).to.contain('fold turn is per thread: loom fold turn <thread> --verify');
    });

    it('--verify against a server whose value was altered prints the differences and exits 3', async () => {
      const proxy = await tamperingProxy(server.url, '/v1/folds/task_list', (answer) => {
        answer.value.tasks[0].state = 'approved';
        answer.value.counts.approved += 1;
      });
      try {
        const result = await loom(['fold', 'task_list', '--verify'], proxy.url);
        expect(result.code, result.stderr).to.equal(3);
        expect(result.stdout).to.equal(
          "MISMATCH: task_list at watermark 6 over 6 records: the server's value differs from the one recomputed from the records:\n" +
            '  /tasks/0/state: server "approved", recomputed "rejected"\n' +
            '  /counts/approved: server 1, recomputed 0\n',
        );
        expect(result.stderr).to.equal('loom: fold task_list does not match the records it covers\n');
        const asJson = await loom(['fold', 'task_list', '--verify', '--json'], proxy.url);
        expect(asJson.code).to.equal(3);
        expect(JSON.parse(asJson.stdout)).to.deep.include({ ok: false, fold_name: 'task_list', watermark: 6 });
        // The honest server, through the same proxy on another path, still verifies.
        expect((await loom(['fold', 'thread_state', A, '--verify'], proxy.url)).code).to.equal(0);
      } finally {
        await proxy.close();
      }
    });
  });

  describe('loom graph', () => {
    it('path: a shortest path with each edge\'s direction', async () => {
      const answer = await json(['graph', 'path', LEAD, AUDITOR]);
      expect(answer).to.deep.equal(await served(`/v1/graph/query?op=path&from=${encodeURIComponent(LEAD)}&to=${encodeURIComponent(AUDITOR)}`));
      expect(answer.path).to.deep.equal([`actor:${LEAD}`, `thread:${A}`, `actor:${AUDITOR}`]);
      expect(await human(['graph', 'path', LEAD, AUDITOR])).to.equal(
        `path of 2 hops:\n  actor:${LEAD}\n  -[wrote_in]-> thread:${A}  ship the parser\n  <-[wrote_in]- actor:${AUDITOR}\n`,
      );
      // The verdict judged the claim, which its author wrote: record → record → actor, against the edges' directions where needed.
      const text = await human(['graph', 'path', `record:${ids['reject']}`, BOB]);
      expect(text).to.match(/^path of \d hops?:\n/);
      expect(text.split('\n')[1]).to.equal(`  record:${ids['reject']}  KNOW: reject`);
      expect(text).to.contain(`actor:${BOB}\n`);
    });

    it('shared: the threads both actors wrote on, with each one\'s records', async () => {
      const answer = await json(['graph', 'shared', BOB, REVIEWER]);
      expect(answer.op).to.equal('shared_context');
      expect(answer.nodes.slice(2).map((n: any) => n.id).sort()).to.deep.equal([`thread:${A}`, `thread:${B}`].sort());
      const lines = (await human(['graph', 'shared', BOB, REVIEWER])).trimEnd().split('\n');
      expect(lines[0]).to.match(new RegExp(`^thread\\s+label\\s+records by ${BOB}\\s+records by ${REVIEWER}$`));
      expect(lines.slice(1).map((l) => l.split(/\s{2,}/)).sort()).to.deep.equal([[`thread:${A}`, 'ship the parser', '1', '1'], [`thread:${B}`, 'plan B', '1', '1']].sort());
      expect(await human(['graph', 'shared', LEAD, AUDITOR, '--limit', '5'])).to.contain(`thread:${A}`);
    });

    it('neighborhood: the nodes within --k hops, breadth first', async () => {
      const [answer, text, near, cut, cutText] = await Promise.all([
        json(['graph', 'neighborhood', BOB, '--k', '2']),
        human(['graph', 'neighborhood', BOB, '--k', '2']),
        json(['graph', 'neighborhood', `thread:${B}`]),
        json(['graph', 'neighborhood', BOB, '--k', '2', '--limit', '2']),
        human(['graph', 'neighborhood', BOB, '--k', '2', '--limit', '2']),
      ]);
      expect(answer).to.deep.equal(await served(`/v1/graph/query?op=neighborhood&node=${encodeURIComponent(BOB)}&k=2`));
      expect(answer.bounds.k).to.equal(2);
      expect(answer.nodes.some((n: any) => n.depth === 2)).to.equal(true);
      const lines = text.trimEnd().split('\n');
      expect(lines[0]).to.match(/^depth\s+kind\s+node\s+label$/);
      expect(lines.slice(1, -1).map((l) => l.split(/\s+/).slice(0, 3))).to.deep.equal(answer.nodes.map((n: any) => [String(n.depth), n.kind, n.id]));
      expect(lines.at(-1)).to.equal(`${answer.nodes.length} nodes, ${answer.edges.length} edges between them (--json lists them)`);
      expect(near.bounds.k).to.equal(1);
      expect(cut).to.include({ truncated: true });
      expect(cutText).to.match(/\ncut short by a bound \(limit\): more may exist\n$/);
    });

    it('central: the most connected actors or threads, ranked', async () => {
      const answer = await json(['graph', 'central']);
      expect(answer.ranking.map((r: any) => [r.id, r.degree])).to.deep.equal([
        [`actor:${BOB}`, 2],
        [`actor:${REVIEWER}`, 2],
        [`actor:${AUDITOR}`, 1],
        [`actor:${LEAD}`, 1],
      ]);
      const lines = (await human(['graph', 'central', '--limit', '2'])).trimEnd().split('\n');
      expect(lines).to.have.length(4);
      expect(lines[0]).to.match(/^rank\s+node\s+label\s+degree\s+records$/);
      expect(lines[1]!.split(/\s+/)).to.deep.equal(['1', `actor:${BOB}`, '2', '2']);
      expect(lines[3]).to.equal('cut short by a bound (limit): more may exist');
      const threads = (await human(['graph', 'central', '--kind', 'thread'])).trimEnd().split('\n');
      expect(threads[1]!.split(/\s{2,}/)).to.deep.equal(['1', `thread:${A}`, 'ship the parser', '4', '4']);
    });

    it('facets: totals, actors and threads the caller may read', async () => {
      const facets = await json(['graph', 'facets']);
      expect(facets).to.deep.equal(await served('/v1/graph/facets'));
      expect(facets.totals).to.deep.equal({ records: 6, kinds: 0, actors: 4, threads: 2 });
      const text = await human(['graph', 'facets']);
      expect(text).to.match(/^6 records, 0 body kinds, 4 actors, 2 threads \(watermark 6\)\n\nactors:\nactor\s+records\s+threads\s+assigned\n/);
      expect(text).to.match(new RegExp(`\\n${BOB}\\s+2\\s+2\\s+1\\n`));
      expect(text).to.match(new RegExp(`\\nthreads:\\nthread\\s+label\\s+records\\s+writers\\n${A}\\s+ship the parser\\s+4\\s+4\\n${B}\\s+plan B\\s+2\\s+2\\n`));
      expect(await human(['graph', 'facets', '--limit', '1'])).to.match(/\nlists cut to --limit 1: the totals count every row\n$/);
    });

    it('refuses a malformed node, an out-of-range k and misplaced options, naming them', async () => {
      const [malformed, unknown, deep, word, foreign, half, walk] = await Promise.all([
        refused(['graph', 'path', 'bob', LEAD], 1),
        refused(['graph', 'path', LEAD, 'did:sync:user:nobody'], 1),
        refused(['graph', 'neighborhood', BOB, '--k', '9'], 1),
        refused(['graph', 'neighborhood', BOB, '--k', 'two'], 2),
        refused(['graph', 'central', '--k', '2'], 2),
        refused(['graph', 'path', LEAD], 2),
        refused(['graph', 'walk'], 2),
      ]);
      expect(malformed).to.match(/^loom: INVALID_SHAPE \(400\): from: "bob" is not a graph node id/);
      expect(unknown).to.match(/^loom: NOT_FOUND \(404\): to: .*did:sync:user:nobody/);
      expect(deep).to.contain('k must be an integer from 1 to 3 (got 9)');
      expect(word).to.contain('--k must be an integer of at least 1');
      expect(foreign).to.contain('--k applies to loom graph neighborhood only');
      expect(half).to.contain('loom graph path takes a start and an end node');
      expect(walk).to.contain('unknown subcommand "walk" of loom graph');
    });
  });

  it('every command answers --help with its usage and defaults; the full usage lists them', async () => {
    const all = [['trust', '--help'], ['trust', 'principals', '-h'], ['actors', '--help'], ['actors', 'show', '--help'], ['fold', '--help'], ['fold', 'help'], ['graph', '--help'], ['graph', 'path', '-h']];
    const helps = await Promise.all(all.map((args) => loom(args)));
    helps.forEach((help, i) => {
      const command = all[i]![0]!;
      expect(help.code, `${all[i]!.join(' ')}: ${help.stderr}`).to.equal(0);
      expect(help.stdout, all[i]!.join(' ')).to.match(new RegExp(`^loom ${command} `));
      expect(help.stdout, all[i]!.join(' ')).to.contain('--json');
    });
    expect(helps[0]!.stdout).to.contain('(--group judge, the default)');
    expect(helps[2]!.stdout).to.contain('(default 100, at most 1000)');
    expect(helps[6]!.stdout).to.contain('(1 to 3, default 1)');
    const usage = await loom(['--help']);
    for (const line of ['loom trust [--actor', 'loom trust principals', 'loom actors [list]', 'loom actors show <did>', 'loom fold list', 'loom fold <name>', 'loom graph path', 'loom graph facets']) expect(usage.stdout).to.contain(line);
  });
});
