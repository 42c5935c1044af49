/**
 * The caller's bearer and the SDK client bound to it. The token lives in
 * memory and sessionStorage (a tab's lifetime, never localStorage: a shared
 * machine keeps nothing after the tab closes). A 401 from any call drops it
 * and shows sign-in with the server's message verbatim (spec §5.6).
 */
import { signal, computed } from '@preact/signals';
import { createLoomClient, type LoomClient, type InstanceBootstrap } from '../sdk/index.js';

const KEY = 'loom.console.token';

export const token = signal<string | null>(readStored());
/** The server's message of the last 401, shown on the sign-in screen. */
export const signInMessage = signal<string | null>(null);
export const bootstrap = signal<InstanceBootstrap | null>(null);
/** Auth is off on this instance: calls without a bearer run as the local caller, who may do anything. */
export const localMode = signal(false);

function readStored(): string | null {
  try {
    return sessionStorage.getItem(KEY);
  } catch {
    return null;
  }
}

export function signIn(bearer: string): void {
  token.value = bearer;
  signInMessage.value = null;
  try {
    sessionStorage.setItem(KEY, bearer);
  } catch {
    // storage refused (private mode): memory only
  }
}

export function signOut(message: string | null = null): void {
  token.value = null;
  bootstrap.value = null;
  signInMessage.value = message;
  try {
    sessionStorage.removeItem(KEY);
  } catch {
    // nothing stored
  }
}

/** Same origin: the console talks only to the instance that served it. */
export const client = computed<LoomClient>(() => {
  const bearer = token.value;
  const loom = createLoomClient({ baseUrl: location.origin, ...(bearer ? { token: bearer } : {}) });
  loom.client.interceptors.response.use(async (response) => {
    if (response.status === 401 && token.peek() !== null) {
      const envelope = (await response.clone().json().catch(() => null)) as { message?: string } | null;
      signOut(envelope?.message ?? 'The server refused the credential (401).');
    }
    return response;
  });
  return loom;
});

/** The message of an SDK error envelope. */
export const messageOf = (error: unknown): string =>
  typeof error === 'object' && error !== null && typeof (error as { message?: unknown }).message === 'string'
    ? (error as { message: string }).message
    : String(error);

/**
 * Scope checks for rendering verbs (spec §5.2, §5.3); the server still enforces.
 * `admin` covers everything; a thread grain covers its own thread.
 */
export function can(scope: 'records:read' | 'records:write' | 'threads:write' | 'config:read' | 'federation:manage' | 'admin', thread?: string): boolean {
  const boot = bootstrap.value;
  if (!boot) return false;
  if (!boot.identity.is_authenticated) return localMode.value;
  const scopes = boot.identity.scopes;
  if (scopes.includes('admin') || scopes.includes(scope)) return true;
  if (scope === 'records:write' && thread) return scopes.includes(`thread:${thread}:write`);
  if (scope === 'records:read') return scopes.some((s) => /^(thread|namespace):.+:(read|write)$/.test(s));
  return false;
}
