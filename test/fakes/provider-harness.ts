/**
 * The three providers side by side for tests that run on all of them (the
 * adapter suite now, the work-loop tests later): how to start each fake,
 * how to configure its adapter against it, and the vendor's names for the
 * scripted faults. A test loops over VENDORS and never names a vendor.
 */
import { createProviderAdapter, type ProviderAdapter, type ProviderConfig, type ProviderName } from '../../plugins/work/providers/index.js';
import { startFakeAnthropic } from './fake-anthropic.js';
import { startFakeOllama } from './fake-ollama.js';
import { startFakeOpenAI } from './fake-openai.js';
import type { FakeProvider } from './fake-server.js';

export interface VendorUnderTest {
  readonly provider: ProviderName;
  readonly model: string;
  /** The key the adapter is configured with (Ollama takes none). */
  readonly apiKey: string | null;
  startFake(): Promise<FakeProvider>;
  config(fake: FakeProvider, overrides?: { idleTimeoutMs?: number }): ProviderConfig;
  /** The vendor's type for an in-stream error the fake is scripted to send, and what the adapter reports for it. */
  readonly streamError: { readonly scripted: string; readonly reported: string };
  /** A 5xx this vendor uses for overload (Anthropic's 529). */
  readonly overloadStatus: number;
  /** The vendor can say "refused" (Ollama cannot). */
  readonly canRefuse: boolean;
  /** Scripted frames before the first content delta (a fault at this frame lands mid-answer, after the headers). */
  readonly framesBeforeContent: number;
}

export const VENDORS: readonly VendorUnderTest[] = [
  {
    provider: 'anthropic',
    model: 'claude-test',
    apiKey: 'sk-ant-api03-test-key-0123456789',
    startFake: startFakeAnthropic,
    config: (fake, overrides = {}) => ({ provider: 'anthropic', apiKey: 'sk-ant-api03-test-key-0123456789', baseUrl: fake.url, ...overrides }),
    streamError: { scripted: 'overloaded_error', reported: 'overloaded_error' },
    overloadStatus: 529,
    canRefuse: true,
    // message_start, content_block_start, ping
    framesBeforeContent: 3,
  },
  {
    provider: 'openai',
    model: 'gpt-test',
    apiKey: 'sk-proj-test-key-0123456789',
    startFake: startFakeOpenAI,
    config: (fake, overrides = {}) => ({ provider: 'openai', apiKey: 'sk-proj-test-key-0123456789', baseUrl: `${fake.url}/v1`, ...overrides }),
    streamError: { scripted: 'server_error', reported: 'server_error' },
    overloadStatus: 503,
    canRefuse: true,
    // the role chunk
    framesBeforeContent: 1,
  },
  {
    provider: 'ollama',
    model: 'llama-test',
    apiKey: null,
    startFake: () => startFakeOllama(),
    config: (fake, overrides = {}) => ({ provider: 'ollama', host: fake.url, ...overrides }),
    streamError: { scripted: 'error', reported: 'stream_error' },
    overloadStatus: 503,
    canRefuse: false,
    framesBeforeContent: 0,
  },
];

export function adapterFor(vendor: VendorUnderTest, fake: FakeProvider, overrides?: { idleTimeoutMs?: number }): ProviderAdapter {
  return createProviderAdapter(vendor.config(fake, overrides));
}
