/**
 * A seeded generator of realistic document histories for the storage bench: one JSON document
 * (a project configuration) edited revision by revision the way such files are — values bumped
 * (versions, counters, timestamps), keys added, keys renamed, arrays replaced, entries removed —
 * growing towards a target size and then holding around it. The same seed gives the same history.
 */
import { rng } from './lib.mjs';

const WORDS = ['alpha', 'build', 'cache', 'debug', 'entry', 'fetch', 'graph', 'hooks', 'index', 'jobs', 'kernel', 'lint', 'merge', 'node', 'owner', 'parse', 'queue', 'route', 'shard', 'token', 'update', 'value', 'watch', 'yield', 'zone'];

/**
 * `revisions` documents of about `targetBytes` of compact JSON each (the first ones smaller: the
 * document grows to the target over the first third of the history).
 * @param {{ targetBytes: number, revisions: number, seed: number }} options
 * @returns {object[]} every revision's whole document (independent copies)
 */
export function generateHistory({ targetBytes, revisions, seed }) {
  const random = rng(seed);
  const pick = (list) => list[Math.floor(random() * list.length)];
  const word = () => `${pick(WORDS)}${Math.floor(random() * 1000)}`;
  const sentence = (n) => Array.from({ length: n }, word).join(' ');
  const leaf = () => {
    const r = random();
    if (r < 0.4) return sentence(1 + Math.floor(random() * 6));
    if (r < 0.7) return Math.floor(random() * 100_000);
    if (r < 0.8) return random() < 0.5;
    return Array.from({ length: 1 + Math.floor(random() * 5) }, word);
  };
  const section = () => {
    const s = { enabled: true, items: Array.from({ length: 2 + Math.floor(random() * 4) }, word), options: {} };
    for (let i = 0; i < 3 + Math.floor(random() * 6); i++) s.options[word()] = leaf();
    return s;
  };
  const doc = { name: 'generated-project', version: '1.0.0', build: 1, updated: '2026-01-01T00:00:00.000Z', sections: {} };
  const size = () => JSON.stringify(doc).length;
  let bytes = size();
  while (bytes < targetBytes / 4) {
    const name = word();
    const added = section();
    doc.sections[name] = added;
    bytes += JSON.stringify(added).length + name.length + 4;
  }
  bytes = size();
  const sectionNames = () => Object.keys(doc.sections);
  const someSection = () => doc.sections[pick(sectionNames())];
  const history = [];
  const growUntil = Math.floor(revisions / 3);
  for (let rev = 0; rev < revisions; rev++) {
    const target = rev < growUntil ? targetBytes / 4 + ((targetBytes * 3) / 4) * (rev / growUntil) : targetBytes;
    // Bookkeeping fields change on every revision, like a generated build file.
    doc.build++;
    doc.updated = new Date(Date.UTC(2026, 0, 1) + rev * 3_600_000).toISOString();
    const edits = 1 + Math.floor(random() * 3);
    for (let e = 0; e < edits; e++) {
      const r = random();
      const s = someSection();
      const keys = Object.keys(s.options);
      if (bytes < target && r < 0.25) doc.sections[word()] = section(); // a new section
      else if (r < 0.5 && keys.length > 0) s.options[pick(keys)] = leaf(); // a value bumped
      else if (r < 0.62) s.options[word()] = leaf(); // a key added
      else if (r < 0.74 && keys.length > 0) {
        const old = pick(keys); // a key renamed
        s.options[word()] = s.options[old];
        delete s.options[old];
      } else if (r < 0.86) s.items = [...s.items.filter(() => random() < 0.8), word()]; // an array replaced
      else if (r < 0.93) doc.version = `1.${Math.floor(rev / 10)}.${rev % 10}`;
      else if (sectionNames().length > 1 && bytes > target * 0.9) delete doc.sections[pick(sectionNames())]; // a section removed
      else s.enabled = !s.enabled;
    }
    bytes = size();
    // Growing: new sections up to this revision's target. Over the target: entries removed.
    while (bytes < target * 0.95) {
      const name = word();
      const added = section();
      doc.sections[name] = added;
      bytes += JSON.stringify(added).length + name.length + 4; // measured again below
    }
    while (bytes > target * 1.05) {
      const s = someSection();
      const keys = Object.keys(s.options);
      if (sectionNames().length > 1 && (keys.length === 0 || random() < 0.5)) {
        const name = pick(sectionNames());
        bytes -= JSON.stringify(doc.sections[name]).length + name.length + 4;
        delete doc.sections[name];
      } else if (keys.length > 0) {
        const key = pick(keys);
        bytes -= JSON.stringify(s.options[key]).length + key.length + 4;
        delete s.options[key];
      } else break;
    }
    bytes = size();
    history.push(structuredClone(doc));
  }
  return history;
}
