import { useEffect, useRef, useState } from 'preact/hooks';
import { uploadFile, type DataNode, type ReadUrl } from '../../sdk/index.js';
import { can, client, messageOf } from '../session.js';
import { href, navigate, route } from '../router.js';
import { Time } from '../time.js';

const size = (bytes: number) => (bytes < 1024 ? `${bytes} B` : bytes < 1_048_576 ? `${(bytes / 1024).toFixed(1)} KiB` : `${(bytes / 1_048_576).toFixed(1)} MiB`);
const join = (dir: string, name: string) => `${dir.replace(/\/$/, '')}/${name}`;
/** An interrupted upload's id, kept for this tab so Resume (even after a reload) sends only the missing chunks. */
const resumeKey = (path: string, file: File) => `loom.console.upload:${path}:${file.size}:${file.lastModified}`;

interface Upload {
  readonly file: File;
  readonly path: string;
  sent: number;
  state: 'sending' | 'paused' | 'done' | 'failed';
  message?: string;
  resumed?: boolean;
}

/**
 * The data plane's files (spec §4.9): browse a namespace's directories,
 * download through a signed link (POST /v1/data/read-url, which anyone
 * holding it may GET until it expires), and for records:write upload with
 * progress, pause and resume: the SDK's uploadFile sends the chunks the
 * server lacks, so a resumed upload never re-sends a chunk that landed.
 */
export function Files() {
  const query = new URLSearchParams(route.value.split('?')[1] ?? '');
  const dir = query.get('path') || '/';
  const [entries, setEntries] = useState<DataNode[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [links, setLinks] = useState<Record<string, ReadUrl>>({});
  const [upload, setUpload] = useState<Upload | null>(null);
  const abort = useRef<AbortController | null>(null);
  const writer = can('records:write');

  const load = async () => {
    const { data, error: refusal } = await client.value.listDataDirectory({ query: { path: dir, limit: 200 } });
    if (data) setEntries(data.entries);
    else setError(messageOf(refusal));
  };
  useEffect(() => {
    setEntries(null);
    setError(null);
    void load();
  }, [dir]);

  const link = async (node: DataNode) => {
    const { data, error: refusal } = await client.value.createDataReadUrl({ body: { path: node.path, namespace: node.namespace } });
    if (data) setLinks({ ...links, [node.path]: data });
    else setError(messageOf(refusal));
  };

  const send = async (file: File, path: string) => {
    const controller = new AbortController();
    abort.current = controller;
    const key = resumeKey(path, file);
    const state: Upload = { file, path, sent: 0, state: 'sending' };
    setUpload({ ...state });
    try {
      const stored = sessionStorage.getItem(key);
      const result = await uploadFile(client.value, {
        path,
        content: file,
        signal: controller.signal,
        ...(stored ? { resumeUploadId: stored } : {}),
        onUpload: (status) => sessionStorage.setItem(key, status.upload_id),
        onProgress: (progress) => setUpload({ ...state, sent: progress.sentBytes }),
      });
      sessionStorage.removeItem(key);
      setUpload({ ...state, sent: file.size, state: 'done', resumed: result.resumed });
      await load();
    } catch (failure) {
      const paused = controller.signal.aborted;
      setUpload((now) => ({ ...(now ?? state), state: paused ? 'paused' : 'failed', ...(paused ? {} : { message: messageOf(failure) }) }));
    }
  };

  const crumbs = dir.split('/').filter(Boolean);
  return (
    <main id="main">
      <h1>Files</h1>
      <nav aria-label="Path" class="crumbs">
        <a href={href('/files')}>/</a>
        {crumbs.map((part, i) => (
          <span key={i}>
            {' '}
            <a href={href(`/files?path=${encodeURIComponent(`/${crumbs.slice(0, i + 1).join('/')}`)}`)}>{part}</a> /
          </span>
        ))}
      </nav>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {writer && (
        <form class="inline" data-write onSubmit={(event) => event.preventDefault()}>
          <label for="upload-file">Upload to {dir}</label>
          <input
            id="upload-file"
            type="file"
            disabled={upload?.state === 'sending'}
            onChange={(event) => {
              const file = (event.target as HTMLInputElement).files?.[0];
              if (file) void send(file, join(dir, file.name));
            }}
          />
        </form>
      )}
      {upload && (
        <div class="upload" role="status" data-upload={upload.state}>
          <label for="upload-progress">
            {upload.path}: {upload.state === 'done' ? (upload.resumed ? 'uploaded (resumed)' : 'uploaded') : upload.state === 'paused' ? 'paused' : upload.state === 'failed' ? `failed: ${upload.message ?? ''}` : 'uploading'}
          </label>{' '}
          <progress id="upload-progress" max={upload.file.size || 1} value={upload.file.size === 0 && upload.state === 'done' ? 1 : upload.sent}>
            {upload.sent}
          </progress>{' '}
          <span data-sent={upload.sent}>
            {size(upload.sent)} of {size(upload.file.size)}
          </span>{' '}
          {upload.state === 'sending' && (
            <button type="button" onClick={() => abort.current?.abort()}>
              Pause upload
            </button>
          )}
          {(upload.state === 'paused' || upload.state === 'failed') && (
            <button type="button" onClick={() => void send(upload.file, upload.path)}>
              Resume upload
            </button>
          )}
        </div>
      )}
      {entries !== null && entries.length === 0 && <p>Nothing in {dir}.</p>}
      {entries !== null && entries.length > 0 && (
        <table class="grid">
          <caption class="sr-only">Files in {dir}</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Size</th>
              <th scope="col">Modified</th>
              <th scope="col">Download</th>
            </tr>
          </thead>
          <tbody>
            {entries.map((node) => (
              <tr key={node.path} data-node={node.path} data-kind={node.kind}>
                <td>
                  {node.kind === 'directory' ? (
                    <a
                      href={href(`/files?path=${encodeURIComponent(node.path)}`)}
                      onClick={(event) => {
                        event.preventDefault();
                        navigate(`/files?path=${encodeURIComponent(node.path)}`);
                      }}
                    >
                      {node.name}/
                    </a>
                  ) : (
                    node.name
                  )}
                </td>
                <td class="num">{node.kind === 'file' ? size(node.size_bytes) : ''}</td>
                <td>{node.modified_at ? <Time at={node.modified_at} /> : ''}</td>
                <td>
                  {node.kind === 'file' &&
                    (links[node.path] ? (
                      <span class="link">
                        <a href={links[node.path]!.blob_url} download={node.name} data-download>
                          Download {node.name}
                        </a>{' '}
                        <span class="hint">
                          (signed link, valid until <Time at={links[node.path]!.expires_at} timeOnly />)
                        </span>
                      </span>
                    ) : (
                      <button type="button" onClick={() => void link(node)}>
                        Link for {node.name}
                      </button>
                    ))}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </main>
  );
}
