import { expect } from 'chai';
import { PeerTable, type Sighting } from './peer-table.js';
import { decodeTxt, encodeTxt } from './txt-record.js';

const sighting = (over: Partial<Sighting> = {}): Sighting => ({
  fqdn: 'a._loom._tcp.local',
  instance: 'a',
  did: 'did:key:z6MkA',
  endpoint: 'http://10.0.0.2:9100',
  namespace: null,
  handle: null,
  capabilities: [],
  addresses: [],
  ttlSeconds: 10,
  ...over,
});

describe('discovery peer table', () => {
  let now = 1_000_000;
  const table = () => new PeerTable(() => now, { maxPeers: 2, reverifyMs: 5_000 });
  beforeEach(() => (now = 1_000_000));

  it('lists a sighting unverified, then verified only for the DID and endpoint that were checked', () => {
    const t = table();
    t.see(sighting());
    expect(t.list()[0]).to.include({ verified: false, last_seen: new Date(now).toISOString() });
    const [due] = t.takeDue();
    expect(t.list()[0]!.verification.state).to.equal('checking');
    // The TXT changed while the check ran: its outcome is dropped and the new DID is checked from scratch.
    t.see(sighting({ did: 'did:key:z6MkB' }));
    t.settle(due!, { ok: true, manifestExpiresAt: now + 60_000 });
    expect(t.list()[0]).to.include({ verified: false });
    const [again] = t.takeDue();
    expect(again!.did).to.equal('did:key:z6MkB');
    t.settle(again!, { ok: true, manifestExpiresAt: now + 60_000 });
    expect(t.list()[0]).to.include({ verified: true });
    // Its manifest expires: checked again, unverified meanwhile.
    now += 60_000;
    t.refresh('a._loom._tcp.local', 10);
    expect(t.takeDue()).to.have.length(1);
    expect(t.list()[0]).to.include({ verified: false });
  });

  it('retries a failed check only after reverifyMs, and never checks an incomplete TXT', () => {
    const t = table();
    t.see(sighting());
    t.see(sighting({ fqdn: 'b._loom._tcp.local', instance: 'b', did: null }));
    const due = t.takeDue();
    expect(due.map((d) => d.fqdn)).to.deep.equal(['a._loom._tcp.local']);
    t.settle(due[0]!, { ok: false, reason: 'manifest_did_mismatch' });
    expect(t.list().map((p) => p.verification.reason)).to.deep.equal(['manifest_did_mismatch', 'txt_incomplete']);
    now += 4_999;
    expect(t.takeDue()).to.deep.equal([]);
    now += 1;
    expect(t.takeDue()).to.have.length(1);
  });

  it('expires on TTL, refreshes on a re-announcement, forgets at a goodbye, and caps the number of peers', () => {
    const t = table();
    t.see(sighting());
    now += 9_000;
    t.refresh('a._loom._tcp.local', 10);
    now += 9_000;
    expect(t.expire()).to.deep.equal([]);
    now += 1_000;
    expect(t.list()).to.deep.equal([]);
    expect(t.expire()).to.deep.equal(['a._loom._tcp.local']);
    t.see(sighting());
    t.see(sighting({ fqdn: 'b._loom._tcp.local', instance: 'b' }));
    t.see(sighting({ fqdn: 'c._loom._tcp.local', instance: 'c' }));
    expect(t.list().map((p) => p.instance)).to.deep.equal(['a', 'b']);
    expect(t.dropped).to.equal(1);
    expect(t.goodbye('a._loom._tcp.local')).to.equal(true);
    expect(t.list().map((p) => p.instance)).to.deep.equal(['b']);
  });
});

describe('discovery TXT record', () => {
  it('round-trips, starts with txtvers, keeps each string under 255 bytes and refuses endpoints that are not plain http(s)', () => {
    const txt = encodeTxt({ did: 'did:key:z6MkA', endpoint: 'https://loom.example:8443', namespace: 'acme', handle: 'ops', capabilities: Array.from({ length: 60 }, (_, i) => `capability_${i}`) });
    expect(Object.keys(txt)[0]).to.equal('txtvers');
    for (const [key, value] of Object.entries(txt)) expect(Buffer.byteLength(`${key}=${value}`)).to.be.at.most(255);
    const back = decodeTxt(txt);
    expect(back).to.include({ did: 'did:key:z6MkA', endpoint: 'https://loom.example:8443', namespace: 'acme', handle: 'ops' });
    expect(back.capabilities.length).to.be.within(1, 59);
    expect(decodeTxt({ DID: 'did:key:z', URL: 'http://10.0.0.2:9100/' })).to.include({ did: 'did:key:z', endpoint: 'http://10.0.0.2:9100' });
    for (const url of ['file:///etc/passwd', 'http://user:pw@host', 'http://host/?q=1', 'gopher://x', 'not a url']) expect(decodeTxt({ did: 'd', url }).endpoint, url).to.equal(null);
  });
});
