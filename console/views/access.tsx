import { useEffect, useState } from 'preact/hooks';
import type { Invite, Member, ServiceAccount } from '../../sdk/index.js';
import { can, client, messageOf, token } from '../session.js';
import { href } from '../router.js';
import { short } from '../format.js';
import { Time } from '../time.js';

/**
 * Who holds access: members (everyone sees their own row, an admin sees all:
 * spec §5.5), and for an admin invites (with a copyable link into this
 * console) and service accounts (the key shown once). Admin-only calls are
 * made only for an admin, so no other caller's page meets a 403.
 */
export function Access() {
  const admin = can('admin');
  return (
    <main id="main">
      <h1>Access</h1>
      <Members admin={admin} />
      <Grants admin={admin} />
      {admin && <Invites />}
      {admin && <ServiceAccounts />}
    </main>
  );
}

function Refusal({ error }: { error: string | null }) {
  return error ? (
    <p role="alert" class="error">
      {error}
    </p>
  ) : null;
}

function Members({ admin }: { admin: boolean }) {
  const [rows, setRows] = useState<Member[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = async () => {
    const { data, error: refusal } = await client.value.listMembers();
    if (data) setRows(data.data);
    else setError(messageOf(refusal));
  };
  useEffect(() => void load(), []);
  const revoke = async (label: string) => {
    const { error: refusal } = await client.value.revokeMember({ path: { label } });
    setError(refusal ? messageOf(refusal) : null);
    await load();
  };
  return (
    <section aria-labelledby="members-heading">
      <h2 id="members-heading">Members</h2>
      <Refusal error={error} />
      {rows !== null && rows.length === 0 && <p>{admin ? 'No members yet: invite someone below.' : 'You hold no membership of your own (a service account, or a grant).'}</p>}
      {rows !== null && rows.length > 0 && (
        <table class="grid">
          <caption class="sr-only">Members</caption>
          <thead>
            <tr>
              <th scope="col">Label</th>
              <th scope="col">Identity</th>
              <th scope="col">Scopes</th>
              <th scope="col">State</th>
              <th scope="col">Expires</th>
              {admin && <th scope="col">Actions</th>}
            </tr>
          </thead>
          <tbody>
            {rows.map((member) => (
              <tr key={member.label} data-member={member.label}>
                <td>{member.label}</td>
                <td>
                  <code title={member.did}>{short(member.did, 28)}</code>
                </td>
                <td>{member.scopes.join(' ')}</td>
                <td data-state={member.state}>{member.state.replace(/_/g, ' ')}</td>
                <td>
                  <Time at={member.expires_at} />
                </td>
                {admin && (
                  <td>
                    {member.state === 'active' && (
                      <button type="button" class="danger" data-write onClick={() => void revoke(member.label)}>
                        Revoke member {member.label}
                      </button>
                    )}
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/** An invite link opens this console, which redeems it (POST /v1/invites/redeem) and signs the holder in. */
export const inviteLink = (token: string) => `${location.origin}${href('/invite')}#${encodeURIComponent(token)}`;

function Secret({ label, value, note }: { label: string; value: string; note: string }) {
  const [copied, setCopied] = useState(false);
  const id = `secret-${label.replace(/\W+/g, '-').toLowerCase()}`;
  return (
    <div class="secret" role="status">
      <label for={id}>{label}</label>
      <input id={id} readOnly value={value} onFocus={(event) => (event.target as HTMLInputElement).select()} />
      <button
        type="button"
        onClick={() =>
          void navigator.clipboard?.writeText(value).then(
            () => setCopied(true),
            () => setCopied(false),
          )
        }
      >
        {copied ? 'Copied' : 'Copy'}
      </button>
      <p class="hint">{note}</p>
    </div>
  );
}

function Invites() {
  const [rows, setRows] = useState<Invite[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [preset, setPreset] = useState<'reader' | 'contributor' | 'admin'>('contributor');
  const [label, setLabel] = useState('');
  const [hours, setHours] = useState('24');
  const [issued, setIssued] = useState<string | null>(null);
  // Invites are issued and revoked by an admin credential even while auth is off (the local caller may not).
  const signed = token.value !== null;
  const load = async () => {
    const { data, error: refusal } = await client.value.listInvites();
    if (data) setRows(data.data);
    else setError(messageOf(refusal));
  };
  useEffect(() => void load(), []);
  const create = async () => {
    const { data, error: refusal } = await client.value.createInvite({
      body: { membership: { preset, ...(label.trim() ? { label: label.trim() } : {}) }, ttl_seconds: Number(hours) * 3600 },
    });
    if (data?.invite_token) setIssued(inviteLink(data.invite_token));
    setError(refusal ? messageOf(refusal) : null);
    await load();
  };
  const revoke = async (id: string) => {
    const { error: refusal } = await client.value.revokeInvite({ path: { invite_id: id } });
    setError(refusal ? messageOf(refusal) : null);
    await load();
  };
  return (
    <section aria-labelledby="invites-heading">
      <h2 id="invites-heading">Invites</h2>
      <Refusal error={error} />
      {!signed && <p class="hint">Issuing or revoking an invite needs an admin bearer even while auth is off: sign in with one.</p>}
      {signed && (
        <form
          class="inline"
          data-write
          onSubmit={(event) => {
            event.preventDefault();
            void create();
          }}
        >
          <label for="invite-preset">Role</label>
          <select id="invite-preset" value={preset} onChange={(event) => setPreset((event.target as HTMLSelectElement).value as typeof preset)}>
            <option value="reader">reader</option>
            <option value="contributor">contributor</option>
            <option value="admin">admin</option>
          </select>
          <label for="invite-label">Label (optional)</label>
          <input id="invite-label" value={label} onInput={(event) => setLabel((event.target as HTMLInputElement).value)} />
          <label for="invite-hours">Valid for</label>
          <select id="invite-hours" value={hours} onChange={(event) => setHours((event.target as HTMLSelectElement).value)}>
            <option value="1">1 hour</option>
            <option value="24">24 hours</option>
            <option value="168">7 days</option>
          </select>
          <button type="submit">Create invite</button>
        </form>
      )}
      {issued && <Secret label="Invite link" value={issued} note="Whoever opens this link joins with the role above. It is shown once." />}
      {rows.length > 0 && (
        <table class="grid">
          <caption class="sr-only">Invites issued</caption>
          <thead>
            <tr>
              <th scope="col">Role</th>
              <th scope="col">Label</th>
              <th scope="col">State</th>
              <th scope="col">Uses</th>
              <th scope="col">Expires</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((invite) => (
              <tr key={invite.invite_id} data-invite={invite.invite_id}>
                <td>{invite.membership.preset ?? invite.membership.scopes.join(' ')}</td>
                <td>{invite.membership.label ?? '—'}</td>
                <td>{invite.state}</td>
                <td class="num">
                  {invite.uses} / {invite.max_uses}
                </td>
                <td>
                  <Time at={invite.expires_at} />
                </td>
                <td>
                  {signed && invite.state === 'active' && (
                    <button type="button" class="danger" data-write onClick={() => void revoke(invite.invite_id)}>
                      Revoke invite
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

const SA_PRESETS: Record<string, string[]> = { reader: ['records:read'], contributor: ['records:read', 'records:write'], admin: ['admin'] };

function ServiceAccounts() {
  const [rows, setRows] = useState<ServiceAccount[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [name, setName] = useState('');
  const [preset, setPreset] = useState('reader');
  const [key, setKey] = useState<string | null>(null);
  const load = async () => {
    const { data, error: refusal } = await client.value.listServiceAccounts();
    if (data) setRows(data.data);
    else setError(messageOf(refusal));
  };
  useEffect(() => void load(), []);
  const create = async () => {
    const { data, error: refusal } = await client.value.createServiceAccount({ body: { name: name.trim(), scopes: SA_PRESETS[preset]! } });
    if (data?.api_key) {
      setKey(data.api_key);
      setName('');
    }
    setError(refusal ? messageOf(refusal) : null);
    await load();
  };
  const revoke = async (id: string) => {
    const { error: refusal } = await client.value.revokeServiceAccount({ path: { id } });
    setError(refusal ? messageOf(refusal) : null);
    await load();
  };
  return (
    <section aria-labelledby="accounts-heading">
      <h2 id="accounts-heading">Service accounts</h2>
      <Refusal error={error} />
      <form
        class="inline"
        data-write
        onSubmit={(event) => {
          event.preventDefault();
          if (name.trim()) void create();
        }}
      >
        <label for="sa-name">Name</label>
        <input id="sa-name" value={name} onInput={(event) => setName((event.target as HTMLInputElement).value)} />
        <label for="sa-preset">Scopes</label>
        <select id="sa-preset" value={preset} onChange={(event) => setPreset((event.target as HTMLSelectElement).value)}>
          {Object.entries(SA_PRESETS).map(([value, scopes]) => (
            <option key={value} value={value}>
              {value} ({scopes.join(' ')})
            </option>
          ))}
        </select>
        <button type="submit" disabled={!name.trim()}>
          Create service account
        </button>
      </form>
      {key && <Secret label="API key" value={key} note="Shown once: the server keeps only its hash. Store it now." />}
      <table class="grid">
        <caption class="sr-only">Service accounts</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Scopes</th>
            <th scope="col">State</th>
            <th scope="col">Live tokens</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((account) => (
            <tr key={account.id} data-account={account.id}>
              <td>{account.display_name || account.name}</td>
              <td>{account.scopes.join(' ')}</td>
              <td>{account.active ? 'active' : 'revoked'}</td>
              <td class="num">{account.live_tokens}</td>
              <td>
                {account.active && (
                  <button type="button" class="danger" data-write onClick={() => void revoke(account.id)}>
                    Revoke account {account.display_name || account.name}
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

interface GrantRow {
  grant_id: string;
  iss: string;
  aud: string;
  scopes: string[];
  chain: string[];
  depth: number;
  label: string | null;
  standing: 'in_force' | 'revoked' | 'expired' | 'not_in_force';
  reason: string | null;
  effective_expires_at: string;
  children: number;
}

/**
 * Delegation grants as chains (spec §5.4), from the grant fold (GET /v1/folds/grant): each grant under the one it
 * was delegated from, saying who granted what to whom. An admin sees the whole graph; anyone else the grants they
 * issued or receive (the fold's own view), so a grant whose parent is not shown names it. Revoking cascades to
 * every grant below; it is offered to an admin and to a grant's issuer (the server also allows the audiences along
 * the chain, and decides).
 */
function Grants({ admin }: { admin: boolean }) {
  const [rows, setRows] = useState<GrantRow[] | null>(null);
  const [me, setMe] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);
  const load = async () => {
    const { data, error: refusal } = await client.value.getGlobalFold({ path: { name: 'grant' } });
    if (data) setRows(((data.value as { grants?: GrantRow[] } | null)?.grants ?? []).slice().sort((a, b) => a.depth - b.depth));
    else setError(messageOf(refusal));
  };
  useEffect(() => {
    void load();
    if (!admin && token.value !== null) void client.value.getSelf().then(({ data }) => setMe(data?.principal ?? null));
  }, []);
  const revoke = async (grant: GrantRow) => {
    const { data, error: refusal } = await client.value.revokeGrant({ path: { grant_id: grant.grant_id } });
    setError(refusal ? messageOf(refusal) : null);
    setDone(data ? `Revoked ${data.grants_revoked} grant${data.grants_revoked === 1 ? '' : 's'} and ${data.credentials_revoked} credential${data.credentials_revoked === 1 ? '' : 's'}.` : null);
    await load();
  };
  if (rows === null && !error) return null;
  const shown = new Set((rows ?? []).map((row) => row.grant_id));
  const parentOf = (row: GrantRow) => row.chain[row.chain.length - 1] ?? null;
  const childrenOf = (id: string | null) => (rows ?? []).filter((row) => (id === null ? !shown.has(parentOf(row) ?? '') : parentOf(row) === id));
  const node = (row: GrantRow) => {
    const parent = parentOf(row);
    const below = childrenOf(row.grant_id);
    return (
      <li key={row.grant_id} data-grant={row.grant_id} data-standing={row.standing}>
        <span class="grant">
          <code title={row.iss}>{short(row.iss, 28)}</code> granted <code title={row.aud}>{short(row.aud, 28)}</code>
          {row.label && ` (${row.label})`}: {row.scopes.join(' ')}
          {parent && !shown.has(parent) && (
            <>
              {' '}
              via grant <code title={parent}>{short(parent)}</code>
            </>
          )}
          {' · '}
          <span data-state={row.standing}>{row.standing.replace(/_/g, ' ')}</span>
          {row.reason && row.reason !== row.standing && ` (${row.reason})`}
          {row.standing === 'in_force' && (
            <>
              , until <Time at={row.effective_expires_at} />
            </>
          )}
          {row.standing === 'in_force' && (admin || (me !== null && row.iss === me)) && (
            <>
              {' '}
              <button type="button" class="danger" data-write onClick={() => void revoke(row)}>
                Revoke grant {short(row.grant_id)}
                {row.children > 0 && ` and the ${row.children} below it`}
              </button>
            </>
          )}
        </span>
        {below.length > 0 && <ul class="chain">{below.map(node)}</ul>}
      </li>
    );
  };
  const roots = childrenOf(null);
  return (
    <section aria-labelledby="grants-heading">
      <h2 id="grants-heading">Grants</h2>
      <Refusal error={error} />
      {done && <p role="status">{done}</p>}
      {rows !== null && rows.length === 0 && <p>{admin ? 'No delegation grant has been issued.' : 'You issued and hold no delegation grant.'}</p>}
      {roots.length > 0 && <ul class="chain root" aria-label="Grant chains">{roots.map(node)}</ul>}
    </section>
  );
}
