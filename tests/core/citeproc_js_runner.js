// Runs citeproc-js (the reference CSL engine) for tests/core/test_citeproc_js_oracle.py.
// stdin: JSON {style: CSL XML, locales: {tag: locale XML}, items: [CSL-JSON], lang?: tag,
//              format?: "text" | "html", citations?: [[id, ...], ...]}
// stdout: JSON {bibliography: [[id, entry], ...], citations: [text, ...]}
// The module path comes from $CITEPROC_JS (installed by tests/fetch_citeproc_js.py).
'use strict';
const fs = require('fs');
const CSL = require(process.env.CITEPROC_JS);

const request = JSON.parse(fs.readFileSync(0, 'utf8'));
const byId = new Map(request.items.map((item) => [item.id, item]));
const sys = {
  retrieveLocale: (tag) => request.locales[tag] || false,
  retrieveItem: (id) => byId.get(id),
};
const engine = new CSL.Engine(sys, request.style, request.lang || undefined, Boolean(request.lang));
engine.setOutputFormat(request.format || 'text');
engine.updateItems(request.items.map((item) => item.id));
const citations = (request.citations || []).map(
  (ids) => engine.makeCitationCluster(ids.map((id) => ({id}))));
let bibliography = [];
const made = engine.makeBibliography();  // false for a style without <bibliography>
if (made) {
  const [meta, entries] = made;
  bibliography = meta.entry_ids.map((ids, i) => [String(ids[0]), entries[i]]);
}
process.stdout.write(JSON.stringify({bibliography, citations}));
