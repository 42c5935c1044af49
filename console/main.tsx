/**
 * The console's shell: boots through GET /v1/instance/bootstrap, signs in
 * (a pasted bearer, a recovery code, or an invite link
 * /console/invite#<invite token> redeemed through POST /v1/invites/redeem),
 * then routes to the views; each view renders the verbs the caller's scopes allow.
 */
import { render } from 'preact';
import { useEffect } from 'preact/hooks';
import { effect, signal } from '@preact/signals';
import './styles.css';
import { bootstrap, client, localMode, messageOf, signIn, signInMessage, signOut, token } from './session.js';
import { href, onLinkClick, route } from './router.js';
import { SignIn } from './views/sign-in.js';
import { Threads } from './views/threads.js';
import { Thread } from './views/thread.js';
import { RecordView } from './views/record.js';
import { Decisions } from './views/decisions.js';
import { Runs } from './views/runs.js';
import { Run } from './views/run.js';
import { Access } from './views/access.js';
import { Folds } from './views/folds.js';
import { Instance } from './views/instance.js';
import { Search } from './views/search.js';
import { lazy } from './lazy.js';

// Loaded on first visit (their own chunks): the views most sessions never open stay off the cold load.
const Federation = lazy(() => import('./views/federation.js').then((module) => module.Federation));
const Members = lazy(() => import('./views/members.js').then((module) => module.Members));
const Member = lazy(() => import('./views/members.js').then((module) => module.Member));
const Files = lazy(() => import('./views/files.js').then((module) => module.Files));

const booting = signal(true);

async function redeemInviteLink(): Promise<void> {
  if (!location.pathname.endsWith('/invite') || location.hash.length < 2) return;
  const invite = decodeURIComponent(location.hash.slice(1));
  history.replaceState(null, '', href('/'));
  route.value = '/';
  const { data, error } = await client.value.redeemInvite({ body: { invite } });
  if (data?.token) signIn(data.token);
  else signInMessage.value = error ? messageOf(error) : 'The invite gave no token.';
}

async function boot(): Promise<void> {
  booting.value = true;
  const loom = client.value;
  const { data } = await loom.getInstanceBootstrap();
  if (token.value !== null && data && !data.identity.is_authenticated) {
    // The token does not hold: ask a route that needs one, so sign-in shows the server's own words (the 401 signs out).
    const { error } = await loom.getSelf();
    if (token.value !== null) signOut(error ? messageOf(error) : 'The server did not accept this token.');
  } else if (token.value === null) {
    // No token: an instance with auth off answers reads as the local caller.
    const { response } = await loom.listThreads({ query: { limit: 1 } });
    localMode.value = response.ok;
  }
  bootstrap.value = data ?? null;
  booting.value = false;
}

function Views() {
  const path = route.value.split('?')[0]!;
  const thread = /^\/threads\/([^/]+)$/.exec(path);
  const at = new URLSearchParams(route.value.split('?')[1] ?? '').get('at') ?? undefined;
  if (thread) return <Thread key={`${thread[1]}:${at ?? ''}`} id={decodeURIComponent(thread[1]!)} at={at} />;
  const record = /^\/records\/([0-9a-f]{64})$/.exec(path);
  if (record) return <RecordView key={record[1]} id={record[1]!} />;
  // The other views decide their verbs from the caller's scopes at mount: they wait for the bootstrap.
  if (!bootstrap.value) return <p class="booting">Loading…</p>;
  if (path === '/' || path === '/threads') return <Threads />;
  if (path === '/decisions') return <Decisions />;
  if (path === '/runs') return <Runs />;
  if (path === '/access') return <Access />;
  if (path === '/folds') return <Folds />;
  if (path === '/instance') return <Instance />;
  if (path === '/search') return <Search />;
  if (path === '/federation') return <Federation />;
  if (path === '/members') return <Members />;
  if (path === '/files') return <Files />;
  const member = /^\/members\/([^/]+)$/.exec(path);
  if (member) return <Member key={member[1]} did={decodeURIComponent(member[1]!)} />;
  const run = /^\/runs\/([^/]+)$/.exec(path);
  if (run) return <Run thread={decodeURIComponent(run[1]!)} />;
  return (
    <main id="main">
      <h1>Not found</h1>
      <p>
        Nothing here. <a href={href('/threads')}>Threads</a>
      </p>
    </main>
  );
}

function Shell() {
  useEffect(() => {
    void redeemInviteLink().then(boot);
    // A new token (sign-in) boots again.
    let first = true;
    return effect(() => {
      void token.value;
      if (first) return void (first = false);
      void boot();
    });
  }, []);
  const boot_ = bootstrap.value;
  // With a token, the thread and record views (which show no verb) start at once, beside the bootstrap: one round
  // trip less before a thread's newest rows. A token that does not hold signs out on its first 401.
  const early = token.value !== null && boot_ === null && /^\/(threads|records)\/[^/]+$/.test(route.value.split('?')[0]!);
  if (booting.value && !early) return <p class="booting">Loading…</p>;
  const signedIn = token.value !== null || localMode.value;
  if (!signedIn || (!boot_ && !early)) return <SignIn />;
  const path = route.value.split('?')[0]!;
  const current = (prefix: string) => (path === prefix || path.startsWith(`${prefix}/`) ? 'page' : undefined);
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="bar">
        <span class="brand">Loom</span>
        <nav aria-label="Views">
          <a href={href('/threads')} aria-current={current('/threads') ?? (path === '/' ? 'page' : undefined)}>
            Threads
          </a>
          <a href={href('/decisions')} aria-current={current('/decisions')}>
            Decisions
          </a>
          <a href={href('/runs')} aria-current={current('/runs')}>
            Runs
          </a>
          <a href={href('/members')} aria-current={current('/members')}>
            Members
          </a>
          <a href={href('/files')} aria-current={current('/files')}>
            Files
          </a>
          <a href={href('/search')} aria-current={current('/search')}>
            Search
          </a>
          <a href={href('/folds')} aria-current={current('/folds')}>
            Folds
          </a>
          <a href={href('/access')} aria-current={current('/access')}>
            Access
          </a>
          <a href={href('/federation')} aria-current={current('/federation')}>
            Federation
          </a>
          <a href={href('/instance')} aria-current={current('/instance')}>
            Instance
          </a>
        </nav>
        <span class="who">{!boot_ ? '' : boot_.identity.is_authenticated ? boot_.identity.scopes.join(' ') : 'local (auth off)'}</span>
        {token.value !== null && (
          <button type="button" onClick={() => signOut()}>
            Sign out
          </button>
        )}
      </header>
      <Views />
    </>
  );
}

document.addEventListener('click', onLinkClick);
render(<Shell />, document.getElementById('app')!);
