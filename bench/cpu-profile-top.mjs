/**
 * Summarise a `.cpuprofile` (from `node --cpu-prof`): the top N functions by self time and by
 * inclusive time, as percentages of the sampled time. With a function name as the third
 * argument, only samples with that function on the stack count (e.g. `replay` for the read
 * path of a historical read, `runAudit` for an audit).
 *
 *   node bench/cpu-profile-top.mjs <file.cpuprofile> [N=25] [function]
 */
import { readFileSync } from 'node:fs';
const p = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const N = Number(process.argv[3] ?? 25);
const under = process.argv[4]; // only samples with this function on the stack
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const self = new Map();
const dt = new Map();
for (let i = 0; i < p.samples.length; i++) dt.set(p.samples[i], (dt.get(p.samples[i]) ?? 0) + (p.timeDeltas[i] ?? 0));
const parent = new Map();
for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const name = (n) => `${n.callFrame.functionName || '(anon)'} ${n.callFrame.url.split('/').slice(-2).join('/')}:${n.callFrame.lineNumber + 1}`;
const incl = new Map();
let total = 0;
const stackHas = (id, fn) => { for (let cur = id; cur !== undefined; cur = parent.get(cur)) if (byId.get(cur).callFrame.functionName === fn) return true; return false; };
for (const [id, t] of dt) {
  if (under !== undefined && !stackHas(id, under)) continue;
  total += t;
  const n = byId.get(id);
  self.set(name(n), (self.get(name(n)) ?? 0) + t);
  const seen = new Set();
  for (let cur = id; cur !== undefined; cur = parent.get(cur)) { const k = name(byId.get(cur)); if (!seen.has(k)) { seen.add(k); incl.set(k, (incl.get(k) ?? 0) + t); } }
}
const show = (m, title) => { console.log(`--- ${title} (total ${(total / 1000).toFixed(0)} ms)`); for (const [k, v] of [...m].sort((a, b) => b[1] - a[1]).slice(0, N)) console.log(`${((100 * v) / total).toFixed(1).padStart(5)}%  ${k}`); };
show(self, 'self'); show(incl, 'inclusive');
