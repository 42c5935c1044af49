import { expect } from 'chai';
import { seededRandom } from '../../storage/compliance/fixtures.js';
import { B, Bm25Index, FIELD_WEIGHTS, K1, tokenize, tokenizeUnicode, type Field } from './bm25-index.js';

type Doc = Partial<Record<Field, string>>;

/** BM25F written plainly from its definition, over the live documents. */
function reference(docs: ReadonlyMap<number, Doc>, terms: ReadonlyArray<{ term: string; weight: number }>): Map<number, number> {
  const weighted = new Map<number, Map<string, number>>();
  let total = 0;
  for (const [doc, fields] of docs) {
    const tf = new Map<string, number>();
    for (const field of Object.keys(FIELD_WEIGHTS) as Field[]) for (const token of tokenize(fields[field] ?? '')) tf.set(token, (tf.get(token) ?? 0) + FIELD_WEIGHTS[field]);
    weighted.set(doc, tf);
    total += [...tf.values()].reduce((a, b) => a + b, 0);
  }
  const average = total / docs.size;
  const scores = new Map<number, number>();
  for (const { term, weight } of terms) {
    const holders = [...weighted].filter(([, tf]) => tf.has(term));
    const idf = Math.log(1 + (docs.size - holders.length + 0.5) / (holders.length + 0.5));
    for (const [doc, tf] of holders) {
      const f = tf.get(term)!;
      const length = [...tf.values()].reduce((a, b) => a + b, 0);
      scores.set(doc, (scores.get(doc) ?? 0) + (idf * weight * f * (K1 + 1)) / (f + K1 * (1 - B + (B * length) / average)));
    }
  }
  return scores;
}

describe('Bm25Index', () => {
  it('tokenize: the ASCII fast path splits exactly as the Unicode tokenizer, on every ASCII character', () => {
    const texts: string[] = [];
    for (let c = 0; c < 128; c++) {
      const ch = String.fromCharCode(c);
      texts.push(ch, `ab${ch}Cd`, `${ch}${ch}x${ch}`);
    }
    texts.push('Deploy the API_v2 to prod: 3 steps (build, test, ship) $5 <b>~x|y</b> a+b=c ^_^ `code`', '');
    for (const text of texts) expect(tokenize(text), JSON.stringify(text)).to.deep.equal(tokenizeUnicode(text));
    expect(tokenize('héllo WÖRLD — “quoted”, ΟΔΟΣ.Α')).to.deep.equal(tokenizeUnicode('héllo WÖRLD — “quoted”, ΟΔΟΣ.Α'));
    expect(tokenize('Ship it: API_v2, now!')).to.deep.equal(['ship', 'it', 'api', 'v2', 'now']);
  });

  it('scores and ranks as BM25F by its definition, after additions, removals and compactions', () => {
    const random = seededRandom(7);
    const vocabulary = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta', 'iota', 'kappa'];
    const words = (n: number) => Array.from({ length: n }, () => vocabulary[Math.floor(random() ** 2 * vocabulary.length)]).join(' ');
    const index = new Bm25Index();
    const live = new Map<number, Doc>();
    const addSome = (count: number) => {
      for (let i = 0; i < count; i++) {
        const doc: Doc = { title: i % 5 === 0 ? words(3) : '', path: i % 7 === 0 ? words(2) : '', text: words(5 + Math.floor(random() * 20)) };
        live.set(index.add(doc), doc);
        if (i % 11 === 10) removeOne();
      }
    };
    const removeOne = () => {
      const victim = [...live.keys()][Math.floor(random() * live.size)]!;
      index.remove(victim);
      live.delete(victim);
    };
    const check = () => {
      for (const q of ['alpha', 'kappa iota', 'theta beta gamma', 'zeta eta']) {
        const terms = index.queryTerms(q, false);
        const expected = [...reference(live, terms)].sort((a, b) => b[1] - a[1] || a[0] - b[0]);
        const { ranked, matched } = index.rank(terms, 25);
        expect(matched).to.equal(expected.length);
        expect(ranked.map((r) => r.doc)).to.deep.equal(expected.slice(0, 25).map(([doc]) => doc));
        ranked.forEach((r, i) => expect(r.score).to.be.closeTo(expected[i]![1], 1e-4));
        const parts = index.explain(terms, ranked[0]!.doc);
        expect(Object.values(parts).reduce((a, b) => a + b, 0)).to.be.closeTo(ranked[0]!.score, 1e-4);
      }
    };
    addSome(300);
    check();
    index.compact();
    check();
    // Removals after a compaction read the documents' term lists where the compaction moved them (a wrong move
    // would leave document frequencies, so idf and every score, off); then enough documents to outgrow the pool.
    for (let i = 0; i < 40; i++) removeOne();
    check();
    addSome(1200);
    check();
    index.compact();
    for (let i = 0; i < 40; i++) removeOne();
    check();
  });

  it('expands only the last word as a prefix, at half weight, and selects kinds by mask', () => {
    const index = new Bm25Index();
    const a = index.add({ text: 'internationalisation matters' }, 1);
    const b = index.add({ text: 'international law' }, 2);
    index.add({ text: 'inter alia' }, 1);
    expect(index.rank(index.queryTerms('internation', false), 10).ranked).to.deep.equal([]);
    const terms = index.queryTerms('law internation', true);
    expect(terms).to.deep.include({ term: 'internationalisation', weight: 0.5 });
    expect(terms).to.deep.include({ term: 'law', weight: 1 });
    expect(index.rank(terms, 10).ranked.map((r) => r.doc)).to.deep.equal([b, a]);
    expect(index.rank(terms, 10, 1).ranked.map((r) => r.doc)).to.deep.equal([a]);
    expect(index.queryTerms('internation law', true).map((t) => t.term)).to.deep.equal(['internation', 'law']);
  });
});
