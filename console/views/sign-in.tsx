import { useState } from 'preact/hooks';
import { client, messageOf, signIn, signInMessage } from '../session.js';
import { assertPasskey } from '../passkey.js';

/** Paste a bearer; an invite link (/console/invite#<token>) is redeemed by the shell before this shows. */
export function SignIn() {
  const [value, setValue] = useState('');
  return (
    <main id="main" class="narrow">
      <h1>Sign in to Loom</h1>
      {signInMessage.value && (
        <p role="alert" class="error">
          {signInMessage.value}
        </p>
      )}
      <form
        onSubmit={(event) => {
          event.preventDefault();
          if (value.trim()) signIn(value.trim());
        }}
      >
        <label for="bearer">Bearer token</label>
        <input id="bearer" name="bearer" type="password" autocomplete="off" value={value} onInput={(event) => setValue((event.target as HTMLInputElement).value)} />
        <button type="submit">Sign in</button>
      </form>
      <p class="hint">The token stays in this tab only (session storage) and is sent to this instance alone. An invite link opens this console and signs you in.</p>
      <Recover />
    </main>
  );
}

/**
 * Re-credential with a recovery code or a passkey (POST /v1/recredential; a
 * passkey signs the challenge of POST /v1/recredential/challenge): the proof is
 * the credential; refusals are shown verbatim (spec §5.6).
 */
function Recover() {
  const [principal, setPrincipal] = useState('');
  const [code, setCode] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  return (
    <section aria-labelledby="recover-heading">
      <h2 id="recover-heading">Recover access</h2>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <form
        onSubmit={async (event) => {
          event.preventDefault();
          setBusy(true);
          const { data, error: refusal } = await client.value.recredential({ body: { principal: principal.trim(), proof: { kind: 'recovery_code', evidence: code.trim() } } });
          setBusy(false);
          if (data) signIn(data.token);
          else setError(messageOf(refusal));
        }}
      >
        <label for="recover-principal">Member (label or DID)</label>
        <input id="recover-principal" autocomplete="username" value={principal} onInput={(event) => setPrincipal((event.target as HTMLInputElement).value)} />
        <label for="recover-code">Recovery code</label>
        <input id="recover-code" type="password" autocomplete="off" value={code} onInput={(event) => setCode((event.target as HTMLInputElement).value)} />
        <button type="submit" disabled={busy || !principal.trim() || !code.trim()}>
          Recover with the code
        </button>
        <button
          type="button"
          disabled={busy || !principal.trim()}
          onClick={async () => {
            setBusy(true);
            setError(null);
            try {
              const loom = client.value;
              const challenge = await loom.createRecredentialChallenge({ body: { principal: principal.trim(), kind: 'passkey' } });
              if (!challenge.data) throw new Error(messageOf(challenge.error));
              const evidence = await assertPasskey(challenge.data.challenge, challenge.data.rp_id);
              const { data, error: refusal } = await loom.recredential({ body: { principal: principal.trim(), proof: { kind: 'passkey', evidence } } });
              if (data) signIn(data.token);
              else setError(messageOf(refusal));
            } catch (failure) {
              setError(failure instanceof Error ? failure.message : String(failure));
            } finally {
              setBusy(false);
            }
          }}
        >
          Use a passkey
        </button>
      </form>
    </section>
  );
}
