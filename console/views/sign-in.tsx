import { useState } from 'preact/hooks';
import { signIn, signInMessage } from '../session.js';

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
    </main>
  );
}
