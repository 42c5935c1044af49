/**
 * The CLI's config file: the bearer token to use per server URL, so a person
 * runs `loom bootstrap` once and then every command without --token.
 *
 * Where: $LOOM_CONFIG, else $XDG_CONFIG_HOME/loom/config.json, else
 * ~/.config/loom/config.json. Shape:
 *   {"servers": {"http://127.0.0.1:9100": {"token": "loom_…", "service_account_id": "sa_…", "saved_at": "…"}}}
 *
 * The file holds credentials, so it is written owner-only (file 0600, a
 * directory we create 0700) and atomically: a temporary file created 0600
 * next to it, flushed, then renamed over it, so a crash or a full disk never
 * leaves a truncated file that loses every saved token. Two saves racing each
 * other keep one of them (last rename wins); a CLI run by one person does not
 * need more.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, realpathSync } from 'node:fs';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join } from 'node:path';
import { CliError } from '../../command/cli-error.js';

export interface SavedServer {
  readonly token: string;
  readonly service_account_id: string | null;
  readonly saved_at: string;
}

interface CliConfigFile {
  servers?: Record<string, unknown>;
  [other: string]: unknown;
}

/** The config file's path. XDG_CONFIG_HOME counts only when absolute, as the XDG spec says. */
export function cliConfigPath(env: NodeJS.ProcessEnv = process.env, home: string = homedir()): string {
  if (env['LOOM_CONFIG']) return env['LOOM_CONFIG'];
  const xdg = env['XDG_CONFIG_HOME'];
  return join(xdg && isAbsolute(xdg) ? xdg : join(home, '.config'), 'loom', 'config.json');
}

/** The whole file; a missing file is an empty config, an unreadable or malformed one is an error (never silently no token). */
function readConfigFile(path: string): CliConfigFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new CliError(`cannot read the config file ${path}: ${(error as Error).message}`, 1);
  }
  if (text.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new CliError(`the config file ${path} is not valid JSON: ${(error as Error).message}`, 1);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new CliError(`the config file ${path} must hold a JSON object`, 1);
  return parsed as CliConfigFile;
}

/** The entry saved for a server URL (as clientContext normalises it), if it holds a token. */
export function savedServer(path: string, url: string): SavedServer | undefined {
  const entry = readConfigFile(path).servers?.[url] as Partial<SavedServer> | undefined;
  if (!entry || typeof entry !== 'object' || typeof entry.token !== 'string' || entry.token === '') return undefined;
  return { token: entry.token, service_account_id: typeof entry.service_account_id === 'string' ? entry.service_account_id : null, saved_at: String(entry.saved_at ?? '') };
}

/** The server URLs a token is saved for (normally one). */
export function urlsSavedWithToken(path: string, token: string): string[] {
  const servers = readConfigFile(path).servers ?? {};
  return Object.entries(servers).filter(([, entry]) => (entry as Partial<SavedServer> | null)?.token === token).map(([url]) => url);
}

/** Saves (or replaces) the token of one server, keeping every other entry and key of the file. */
export async function saveServerToken(path: string, url: string, token: string, serviceAccountId: string | null): Promise<SavedServer> {
  const target = followSymlink(path);
  const config = readConfigFile(target);
  const entry: SavedServer = { token, service_account_id: serviceAccountId, saved_at: new Date().toISOString() };
  const servers = config.servers && typeof config.servers === 'object' && !Array.isArray(config.servers) ? config.servers : {};
  await writeAtomically(target, JSON.stringify({ ...config, servers: { ...servers, [url]: entry } }, null, 2) + '\n');
  return entry;
}

/** A config file kept as a symlink (dotfile managers) is updated where it points, not replaced by a plain file. */
function followSymlink(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

async function writeAtomically(path: string, text: string): Promise<void> {
  const dir = dirname(path);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  // Same directory, so the rename stays on one filesystem and is atomic.
  const temp = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    const handle = await open(temp, 'wx', 0o600);
    try {
      // The umask can only narrow the mode given to open; chmod makes it exactly 0600 whatever the umask.
      await handle.chmod(0o600);
      await handle.writeFile(text, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw new CliError(`cannot write the config file ${path}: ${(error as Error).message}`, 1);
  }
}
