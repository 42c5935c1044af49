import { expect } from 'chai';
import type { PageRequest, RecordPage } from '../../storage/contract/record-store.js';
import type { StoredRecord } from '../../storage/contract/stored-record.js';
import { logPages, recordPages } from './record-pages.js';

const stored = (sequence: number) => ({ sequence }) as unknown as StoredRecord;

/** An index over `sequences` that records each request it answers. */
function index(sequences: number[], requests: PageRequest[] = []) {
  return async (page: PageRequest): Promise<RecordPage> => {
    requests.push(page);
    const rest = sequences.filter((s) => s > (page.after ?? 0));
    const items = rest.slice(0, page.limit).map(stored);
    return { items, nextAfter: rest.length > items.length ? items[items.length - 1]!.sequence : null };
  };
}

async function collect<T>(pages: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const page of pages) all.push(page);
  return all;
}

const seqs = (page: RecordPage | StoredRecord[]) => ('items' in page ? page.items : page).map((s) => s.sequence);

describe('recordPages and logPages', () => {
  it('pages an index to its end, the first page at firstLimit and the rest at limit', async () => {
    const requests: PageRequest[] = [];
    const pages = await collect(recordPages(index([1, 2, 3, 4, 5, 6], requests), { limit: 2, firstLimit: 1 }));
    expect(pages.map(seqs)).to.deep.equal([[1], [2, 3], [4, 5], [6]]);
    expect(requests.map((r) => r.limit)).to.deep.equal([1, 2, 2, 2]);
  });

  it('starts after `after` and drops what lies past `upTo`, reading no further', async () => {
    const requests: PageRequest[] = [];
    const pages = await collect(recordPages(index([1, 2, 3, 4, 5, 6, 7], requests), { after: 1, limit: 3, upTo: 5 }));
    expect(pages.map(seqs)).to.deep.equal([[2, 3, 4], [5]]);
    expect(requests).to.have.length(2);
  });

  it('goes on past an empty page that has a cursor (a restricted read), and stops reading when the consumer stops', async () => {
    let calls = 0;
    const read = async (page: PageRequest): Promise<RecordPage> => {
      calls++;
      return page.after === 0 ? { items: [], nextAfter: 10 } : { items: [stored(11)], nextAfter: 11 };
    };
    for await (const page of recordPages(read)) if (page.items.length > 0) break;
    expect(calls).to.equal(2);
  });

  it('pages the changes feed until an empty page, not a short one, and up to `upTo`', async () => {
    const log = [1, 2, 3, 4, 5];
    const afters: number[] = [];
    // Answers at most two whatever it is asked, as a store clamps a limit.
    const changesSince = async (after: number, limit: number) => {
      afters.push(after);
      return log.filter((s) => s > after).slice(0, Math.min(limit, 2)).map(stored);
    };
    expect((await collect(logPages(changesSince, { limit: 3 }))).map(seqs)).to.deep.equal([[1, 2], [3, 4], [5]]);
    expect(afters).to.deep.equal([0, 2, 4, 5]);
    expect((await collect(logPages(changesSince, { after: 1, upTo: 4 }))).map(seqs)).to.deep.equal([[2, 3], [4]]);
  });
});
