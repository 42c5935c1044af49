import { useEffect, useState } from 'preact/hooks';
import type { ActorEvals, MemberHistoryVersion, RosterEntry } from '../../sdk/index.js';
import { can, client, localMode, messageOf, token } from '../session.js';
import { href } from '../router.js';
import { Confirm } from '../confirm.js';
import { Time } from '../time.js';

/**
 * Member actors (spec §4.15): the roster, and per member its versions (what
 * changed from the version before, field by field), revert and retire, and
 * its eval grades with each definition compared against its predecessor.
 * History and revert are the owner's (the server answers OWNER_ONLY to anyone
 * else), so they are asked for only when the signed-in principal is the
 * member's owner; retire is the owner's or an operator's (admin here).
 */
export function Members() {
  const [rows, setRows] = useState<RosterEntry[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    void client.value.getActorRoster({ query: { include_retired: true, limit: 200 } }).then(({ data, error: refusal }) => (data ? setRows(data.data) : setError(messageOf(refusal))));
  }, []);
  return (
    <main id="main">
      <h1>Members</h1>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {rows !== null && rows.length === 0 && <p>No member is defined here (POST /v1/actors/define).</p>}
      {rows !== null && rows.length > 0 && (
        <table class="grid">
          <caption class="sr-only">Members</caption>
          <thead>
            <tr>
              <th scope="col">Member</th>
              <th scope="col">Model</th>
              <th scope="col">Version</th>
              <th scope="col">Tools</th>
              <th scope="col">State</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.did} data-roster={row.label}>
                <td>
                  <a href={href(`/members/${encodeURIComponent(row.did)}`)}>{row.display_name || row.label}</a>
                </td>
                <td>{row.model ?? '–'}</td>
                <td class="num">{row.version}</td>
                <td>{row.tools.length}</td>
                <td data-state={row.retired ? 'retired' : row.enabled ? 'enabled' : 'disabled'}>{row.retired ? 'retired' : row.enabled ? 'enabled' : 'disabled'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </main>
  );
}

const FIELDS = ['display_name', 'model', 'prompt_record_id', 'tools', 'budget_usd', 'max_turns', 'daily_cost_cap_usd', 'daily_loop_cap', 'retired'] as const;
const show = (value: unknown): string => (value === null || value === undefined ? '–' : Array.isArray(value) ? (value.length ? value.join(', ') : 'none') : String(value));

export function Member({ did }: { did: string }) {
  const [entry, setEntry] = useState<RosterEntry | null>(null);
  const [versions, setVersions] = useState<MemberHistoryVersion[] | null>(null);
  const [evals, setEvals] = useState<ActorEvals | null>(null);
  const [me, setMe] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const operator = can('admin');

  const load = async () => {
    const loom = client.value;
    const [roster, self, graded] = await Promise.all([
      loom.getActorRoster({ query: { include_retired: true, limit: 500 } }),
      token.value !== null ? loom.getSelf() : Promise.resolve(null),
      loom.getActorEvals({ path: { did } }),
    ]);
    const found = roster.data?.data.find((row) => row.did === did) ?? null;
    setEntry(found);
    if (!found) setError(roster.error ? messageOf(roster.error) : `No member ${did} is defined here.`);
    const principal = self?.data?.principal ?? null;
    setMe(principal);
    setEvals(graded.data ?? null);
    // Auth off: the local caller owns what it defined; the server still answers OWNER_ONLY otherwise.
    if (found && (found.proposer === principal || (localMode.value && token.value === null))) {
      const history = await loom.listActorHistory({ path: { did }, query: { limit: 50 } });
      setVersions(history.data?.data ?? null);
      if (history.error) setError(messageOf(history.error));
    }
  };
  useEffect(() => void load(), [did]);

  const act = async (call: () => Promise<{ error?: unknown }>) => {
    setBusy(true);
    const { error: refusal } = await call();
    setBusy(false);
    setError(refusal ? messageOf(refusal) : null);
    await load();
  };

  const owner = entry !== null && (entry.proposer === me || (localMode.value && token.value === null));
  return (
    <main id="main">
      <h1>
        Member {entry ? entry.display_name || entry.label : ''} <code>{did}</code>
      </h1>
      <p>
        <a href={href('/members')}>All members</a>
      </p>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {entry && (
        <section aria-labelledby="definition-heading">
          <h2 id="definition-heading">In force</h2>
          <dl class="fields" data-member-version={entry.version} data-retired={entry.retired ? 'yes' : 'no'}>
            <dt>Version</dt>
            <dd>{entry.version}</dd>
            <dt>Model</dt>
            <dd>{entry.model ?? '–'}</dd>
            <dt>Tools</dt>
            <dd>{show(entry.tools)}</dd>
            <dt>State</dt>
            <dd>{entry.retired ? 'retired' : entry.enabled ? 'enabled' : 'disabled'}</dd>
            <dt>Owner</dt>
            <dd>
              <code>{entry.proposer}</code>
            </dd>
          </dl>
          {!entry.retired && (owner || operator) && (
            <p>
              <Confirm label="Retire" question={`Retire ${entry.label}? Its writes are refused from now on; it cannot be reverted.`} confirm={`Retire ${entry.label}`} disabled={busy} onConfirm={() => act(() => client.value.retireActor({ path: { did } }))} />
            </p>
          )}
        </section>
      )}
      {versions && (
        <section aria-labelledby="versions-heading">
          <h2 id="versions-heading">Versions</h2>
          <ol class="versions" reversed>
            {versions.map((version, i) => {
              const before = versions[i + 1] ?? null;
              return (
                <li key={version.definition_record_id} data-version={version.version}>
                  <strong>v{version.version}</strong> {version.change} by <code>{version.by}</code>, <Time at={version.at} />
                  {before && version.changed.length > 0 && (
                    <table class="grid diff">
                      <caption class="sr-only">Changed from v{before.version}</caption>
                      <thead>
                        <tr>
                          <th scope="col">Field</th>
                          <th scope="col">v{before.version}</th>
                          <th scope="col">v{version.version}</th>
                        </tr>
                      </thead>
                      <tbody>
                        {FIELDS.filter((field) => show(before[field]) !== show(version[field])).map((field) => (
                          <tr key={field} data-changed={field}>
                            <th scope="row">{field}</th>
                            <td>
                              <del>{show(before[field])}</del>
                            </td>
                            <td>
                              <ins>{show(version[field])}</ins>
                            </td>
                          </tr>
                        ))}
                      </tbody>
                    </table>
                  )}
                  {i > 0 && owner && entry && !entry.retired && (
                    <button type="button" data-write disabled={busy} onClick={() => void act(() => client.value.revertActorDefinition({ path: { did }, body: { version: version.definition_record_id } }))}>
                      Revert to v{version.version}
                    </button>
                  )}
                </li>
              );
            })}
          </ol>
        </section>
      )}
      {evals && (
        <section aria-labelledby="evals-heading">
          <h2 id="evals-heading">Evals</h2>
          {evals.grades.length === 0 ? (
            <p data-grades="0">No grades yet (POST /v1/evals/score scores a member's runs with a suite).</p>
          ) : (
            <table class="grid" data-grades={evals.grades.length}>
              <caption class="sr-only">Grades, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">Suite</th>
                  <th scope="col">Version</th>
                  <th scope="col">Structure</th>
                  <th scope="col">Substance</th>
                  <th scope="col">Runs</th>
                  <th scope="col">At</th>
                </tr>
              </thead>
              <tbody>
                {evals.grades.map((grade) => (
                  <tr key={grade.id} data-grade={grade.id}>
                    <td>{grade.suite}</td>
                    <td class="num">v{grade.definition_version}</td>
                    <td class="num">{score(grade.structure_score)}</td>
                    <td class="num">{grade.substance_scored ? score(grade.substance_score) : 'not scored'}</td>
                    <td class="num">{grade.runs_scored}</td>
                    <td>
                      <Time at={grade.at} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          {evals.comparisons.length > 0 && (
            <ul class="plain" aria-label="Against the version before">
              {evals.comparisons.map((comparison) => (
                <li key={comparison.grade} data-comparison={comparison.version}>
                  {comparison.suite}: v{comparison.version} against v{comparison.predecessor_version}: structure {delta(comparison.structure.delta)}
                  {comparison.substance.substance_scored && `, substance ${delta(comparison.substance.delta)}`}
                </li>
              ))}
            </ul>
          )}
        </section>
      )}
    </main>
  );
}

const score = (value: number | null) => (value === null ? '–' : value.toFixed(2));
const delta = (value: number | null) => (value === null ? '–' : `${value >= 0 ? '+' : ''}${value.toFixed(2)}`);
