/* kari report --html: renders the page from the inline data (no library, no network).
   Every text from the data goes through textContent, never innerHTML. */
"use strict";

const PAGE = 150; // game rows shown at a time

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

const pct = (v) => (v === null || v === undefined ? "-" : (100 * v).toFixed(1));
const pctCI = (v, ci) => (v === null || v === undefined ? "-" : ci ? `${pct(v)} [${pct(ci[0])}, ${pct(ci[1])}]` : pct(v));
const turnsCI = (v, ci) => (v === null || v === undefined ? "-" : ci ? `${v.toFixed(2)} [${ci[0].toFixed(2)}, ${ci[1].toFixed(2)}]` : v.toFixed(2));
const signed = (v) => (v >= 0 ? "+" : "") + (100 * v).toFixed(1);
const pointsCI = (d, ci) => (d === null || d === undefined ? "-" : ci ? `${signed(d)} [${signed(ci[0])}, ${signed(ci[1])}]` : signed(d));
const pValue = (p) => (p === null || p === undefined ? "-" : p < 1e-4 ? "< 0.0001" : p < 0.01 ? p.toFixed(4) : p.toFixed(3));

function table(headers, rows, leftColumns = 1) {
  return el("table", {},
    el("thead", {}, el("tr", {}, headers.map((h, i) => el("th", { class: i < leftColumns ? "l" : null, text: h })))),
    el("tbody", {}, rows.map((cells) => el("tr", {}, cells.map((c, i) =>
      c instanceof Node ? el("td", { class: i < leftColumns ? "l" : null }, c)
                        : el("td", { class: i < leftColumns ? "l" : null, text: c }))))));
}

async function loadData() {
  const script = document.getElementById("kari-data");
  const text = script.textContent;
  if (script.dataset.encoding === "json") return JSON.parse(text);
  if (typeof DecompressionStream === "undefined") throw new Error("this browser cannot inflate the report's data (no DecompressionStream)");
  const bytes = Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  return JSON.parse(await new Response(stream).text());
}

const SOURCES = [["kb", "+KB rules"], ["rules", "+benchmark rules"]];

function table1Rows(report, subset) {
  // one row per (player, model): without rules, then each rule source with its delta (as report.md's Table 1)
  const rows = Object.fromEntries(report.runs.map((r) => [r.run, r]));
  const deltas = report.comparisons.filter((c) => c.kind === "rules" && (!subset || c[subset]));
  const byBase = new Map();
  for (const c of deltas) {
    if (!byBase.has(c.a)) byBase.set(c.a, {});
    byBase.get(c.a)[c.source || "rules"] = c;
  }
  const body = [];
  for (const [base, comps] of byBase) {
    const a = rows[base];
    const first = Object.values(comps)[0];
    const cells = [a.player, a.model || "-", subset ? `${pct(first[subset].a_success_rate)} (${first[subset].pairs})`
                                                    : pctCI(a.success_rate, a.success_rate_ci)];
    for (const [source] of SOURCES) {
      const c = comps[source];
      if (!c) { cells.push("-", "-", "-"); continue; }
      const cell = subset ? c[subset] : c, b = rows[c.b];
      cells.push(subset ? pct(cell.b_success_rate) : pctCI(b.success_rate, b.success_rate_ci),
        pointsCI(cell.delta, cell.delta_ci), pValue(cell.mcnemar_p));
    }
    body.push(cells);
  }
  if (!subset) {
    const paired = new Set(deltas.flatMap((c) => [c.a, c.b]));
    for (const r of report.runs) {
      if (paired.has(r.run)) continue;
      const name = r.player === r.run ? r.player : `${r.player} (${r.run})`;
      const cells = [name, r.model || "-", "-", "-", "-", "-", "-", "-", "-"];
      const column = !r.rules ? 2 : r.rule_source === "kb" ? 3 : 6;
      cells[column] = pctCI(r.success_rate, r.success_rate_ci);
      body.push(cells);
    }
  }
  return [body, deltas];
}

function sentence(c, report) {
  if (c.delta === null || c.delta === undefined) return el("p", { class: "sentence", text: `${c.label}: the two runs share no game, so there is no delta.` });
  const verdict = c.excludes_zero ? el("span", { class: "yes", text: "the interval excludes zero: distinguishable from zero" })
                                  : el("span", { class: "no", text: "the interval includes zero: not distinguishable from zero" });
  return el("p", { class: "sentence" }, `${c.label} (${c.b} vs ${c.a}): delta SR ${pointsCI(c.delta, c.delta_ci)} points over ${c.pairs} paired games (McNemar p = ${pValue(c.mcnemar_p)}, b = ${c.discordant.b}, c = ${c.discordant.c}); `, verdict, ` at the ${100 * report.level}% level.`);
}

const TABLE1_HEAD = ["questioner", "model", "SR % [CI]", "SR % +KB rules [CI]", "delta KB (points) [CI]", "McNemar p",
  "SR % +benchmark rules [CI]", "delta benchmark (points) [CI]", "McNemar p"];

function renderTable1(data) {
  const report = data.report;
  const [body, deltas] = table1Rows(report, null);
  const target = document.querySelector("#table1 .body");
  target.append(table(TABLE1_HEAD, body, 2));
  for (const c of deltas) target.append(sentence(c, report));
  target.append(el("p", { class: "note", text: "One row per questioner and model (symbolic: no LLM played; not recorded: an LLM run of an older kari); each model's runs with rules are paired with its own run without them. +KB rules: the KB-anchored rules; +benchmark rules: the benchmark-supervised (cross-fitted) rules. b: games solved without rules and lost with them; c: the reverse. Intervals at 95%; bootstrap: " + report.resamples + " resamples, seed " + report.seed + "." }));
}

function renderTable1WithoutKB(data) {
  const report = data.report;
  const [body, deltas] = table1Rows(report, "without_kb_evidence");
  const target = document.querySelector("#table1-kb .body");
  if (!deltas.length) { target.append(el("p", { class: "note", text: "No run was played with KB-anchored rules that name a hidden object as KB evidence: no such table." })); return; }
  target.append(table(TABLE1_HEAD.map((h) => h.replace(" [CI]", "").replace(" (points)", " (points) [CI]")), body, 2));
  for (const c of deltas) target.append(sentence({ ...c, ...c.without_kb_evidence }, report));
  target.append(el("p", { class: "note", text: "The same deltas on the games left when every game whose hidden object is one of the KB's positive objects of its target's matched KB rule is removed; the games left in brackets." }));
}

function renderCoverage(data) {
  const kb = data.report.kb_coverage;
  const target = document.querySelector("#coverage .body");
  if (!kb) { target.append(el("p", { class: "note", text: "No run was played with KB-anchored rules: no KB coverage." })); return; }
  const share = (n, d) => (d ? `${n} of ${d} (${(100 * n / d).toFixed(1)}%)` : `${n} of 0`);
  const how = kb.match === "exact" ? "identical verb ids" : `sentence similarity >= ${kb.threshold} (all-MiniLM-L6-v2)`;
  target.append(el("p", { text: `Rules: ${kb.rules_file} (${kb.rules} KB-anchored rules), matched to candidates by ${how}. Target affordances with a matched rule: ${share(kb.affordances_covered, kb.affordances)}; games whose target has one: ${share(kb.games_covered, kb.games)} (the paper: 67.4%); of those, games whose hidden object is itself a KB positive of the target's rule: ${kb.games_kb_positive}.` + (kb.uncovered_affordances.length ? ` Uncovered: ${kb.uncovered_affordances.join(", ")}.` : "") }));
  target.append(table(["run", "model", "SR % covered [CI] (games)", "SR % uncovered [CI] (games)"], data.report.runs.map((r) => {
    const cov = (r.by_rule_coverage || {}).covered || {}, unc = (r.by_rule_coverage || {}).uncovered || {};
    return [r.run, r.model || "-", `${pctCI(cov.success_rate, cov.success_rate_ci)} (${cov.games || 0})`,
      `${pctCI(unc.success_rate, unc.success_rate_ci)} (${unc.games || 0})`];
  }), 2));
}

function renderRuns(data) {
  const rows = data.report.runs.map((r) => {
    const cov = (r.by_rule_coverage || {}).covered || {}, unc = (r.by_rule_coverage || {}).uncovered || {};
    const yes = (r.by_rule_covers_object || {}).covers || {}, no = (r.by_rule_covers_object || {}).does_not_cover || {};
    const repeats = r.success_rate_over_runs;
    const people = r.participants ? ` · ${r.participants} participants: ${pctCI(r.success_rate, r.success_rate_ci_participants)}` : "";
    const peopleTurns = r.participants ? ` · participants: ${turnsCI(r.avg_turns_solved, r.avg_turns_solved_ci_participants)}` : "";
    return [r.run, r.model || "-", r.served_model || "-", r.rule_source || "none", r.games,
      pctCI(r.success_rate, r.success_rate_ci) + people, turnsCI(r.avg_turns_solved, r.avg_turns_solved_ci) + peopleTurns,
      pctCI(cov.success_rate, cov.success_rate_ci), pctCI(unc.success_rate, unc.success_rate_ci),
      pctCI(yes.success_rate, yes.success_rate_ci), pctCI(no.success_rate, no.success_rate_ci),
      repeats ? `${pctCI(repeats.mean, repeats.ci)} (${repeats.runs} runs)` : "-",
      r.tokens === null || r.tokens === undefined ? "-" : r.tokens.toLocaleString("en")];
  });
  const body = document.querySelector("#runs .body");
  body.append(table(["run", "model", "served as", "rule source", "games", "SR % [CI]", "turns [CI]", "SR % covered [CI]",
    "SR % uncovered [CI]", "SR % rule covers object [CI]", "SR % rule does not [CI]", "SR % over runs [CI]", "tokens"], rows, 4));
  body.append(el("p", { class: "note", text: "Covered: the game's target has a matched rule; 'rule covers object': that rule holds for the hidden object. Served as: the model id the server reported. SR intervals: Wilson over games; turns: bootstrap over games; over runs: the t interval of the runs' SRs; runs played by people (kari serve) also show both over participants (a cluster bootstrap)." }));
}

function renderBudget(data) {
  const rows = data.report.runs.filter((r) => r.sr_by_budget);
  const body = document.querySelector("#budget .body");
  if (!rows.length) return;
  const top = Math.max(...rows.map((r) => r.sr_by_budget.t.length - 1));
  const shown = [...new Set([1, 2, 3, 5, 8, 10, 15, 20].filter((t) => t < top).concat([top]))];
  body.append(table(["run", "model", ...shown.map((t) => `t = ${t}`)], rows.map((r) => {
    const c = r.sr_by_budget, last = c.t.length - 1;
    return [r.run, r.model || "-", ...shown.map((t) => { const i = Math.min(t, last); return pctCI(c.success_rate[i], c.ci[i]); })];
  }), 2));
  body.append(el("p", { class: "note", text: "SR % within t: the share of games solved with at most t question turns, from the recorded turn counts (no game replayed with a smaller budget); Wilson intervals over games." }));
}

function renderMatched(data) {
  const body = document.querySelector("#matched .body");
  const rows = data.affordance_rules || [];
  if (!rows.length) { body.append(el("p", { class: "note", text: data.rules_origin })); return; }
  body.append(el("p", { class: "note", text: data.rules_origin }));
  const shown = rows.filter((r) => state.affordance === "" || r.affordance === state.affordance);
  body.append(table(["benchmark affordance", "matched rule", "verb", "similarity", "recall on its positives", "precision", "positives"],
    shown.map((r) => [r.affordance, r.rule === null ? (r.played ? "none (below the threshold)" : "not a candidate in these games") : r.rule,
      r.verb || "-", r.similarity === null ? "-" : r.similarity.toFixed(3),
      r.recall === null ? "-" : `${pct(r.recall)}% (${r.covered_positives}/${r.positives})`,
      r.precision === null ? "-" : `${pct(r.precision)}% (${r.false_positives} covered negatives)`, r.positives]), 3));
  body.append(el("p", { class: "note", text: "Each benchmark affordance with the rule the games matched to it (the best match recorded by the runs played with these rules: its verb and sentence similarity), and that rule's recall on the benchmark's positives of the affordance and its precision on its labelled objects (the solver's any-part coverage)." }));
}

function renderPairs(data) {
  const others = data.report.comparisons.filter((c) => c.kind === "player");
  const target = document.querySelector("#pairs .body");
  if (!others.length) { target.append(el("p", { class: "note", text: "Only one run, or only its rules partner." })); return; }
  target.append(table(["comparison (b vs a)", "pairs", "SR % a", "SR % b", "delta SR [CI]", "McNemar p", "b", "c", "excludes 0"],
    others.map((c) => [c.label, c.pairs, pct(c.a_success_rate), pct(c.b_success_rate), pointsCI(c.delta, c.delta_ci),
      pValue(c.mcnemar_p), c.discordant.b ?? "-", c.discordant.c ?? "-", c.excludes_zero ? "yes" : "no"])));
  if (others.some((c) => c.clustered)) target.append(el("p", { class: "note", text: "A comparison with a run played by people (kari serve) pairs by game: the delta is the mean over shared games of SR b - SR a, its interval a cluster bootstrap over participants; it has no McNemar test." }));
}

const state = { player: "", affordance: "", outcome: "", object: "", shown: PAGE, open: null };

function renderAffordances(data) {
  const runs = data.report.runs.filter((r) => state.player === "" || String(data.runs.findIndex((x) => x.label === r.run)) === state.player);
  const targets = [...new Set(data.report.runs.flatMap((r) => Object.keys(r.by_affordance)))].sort()
    .filter((t) => state.affordance === "" || t === state.affordance);
  const rows = targets.map((t) => [t, ...runs.map((r) => {
    const cell = r.by_affordance[t];
    return cell ? `${pctCI(cell.success_rate, cell.success_rate_ci)} (${cell.games})` : "-";
  })]);
  const body = document.querySelector("#affordances .body");
  body.replaceChildren(table(["target", ...runs.map((r) => r.run)], rows));
}

function matching(data) {
  return data.games.filter((g) => (state.player === "" || String(g.r) === state.player)
    && (state.affordance === "" || g.t === state.affordance)
    && (state.outcome === "" || String(g.s) === state.outcome)
    && (state.object === "" || (g.o || "").includes(state.object)));
}

function renderGames(data) {
  const games = matching(data);
  const body = document.querySelector("#games-table tbody");
  body.replaceChildren(...games.slice(0, state.shown).map((g) => {
    const index = data.games.indexOf(g);
    const rule = g.rh === null ? "-" : g.rc ? "covers the object" : g.rh ? "does not cover it" : "none";
    const row = el("tr", { "data-game": index, class: state.open === index ? "open" : null,
      onclick: () => { state.open = index; renderGames(data); renderTranscript(data, g); } },
      el("td", { class: "l", text: data.runs[g.r].label + (g.k ? ` #${g.k}` : "") }), el("td", { class: "l", text: g.g }),
      el("td", { class: "l", text: g.o }), el("td", { class: "l", text: g.t }),
      el("td", { class: "l", text: g.q === null ? "(invalid)" : g.q }),
      el("td", { class: g.s ? "won" : "lost", text: g.s ? "solved" : "lost" }), el("td", { text: g.n }),
      el("td", { class: "l", text: rule }));
    return row;
  }));
  document.getElementById("games-count").textContent = `${Math.min(state.shown, games.length)} of ${games.length} games shown (${data.games.length} records in all)`;
  document.getElementById("more").hidden = games.length <= state.shown;
}

function beliefCells(hard, soft, n) {
  return Array.from({ length: n }, (_, i) => {
    const h = hard ? hard[i] : null, s = soft ? soft[i] : null;
    const shade = h === null ? 0 : Math.round(255 - 150 * h);
    return el("td", { style: h === null ? null : `background: rgb(${shade}, ${Math.round(255 - 90 * h)}, 255)` },
      el("span", { class: "cell" }, h === null ? "-" : h.toFixed(2), el("span", { class: "soft", text: s === null ? "" : `soft ${s.toFixed(2)}` })));
  });
}

function renderTranscript(data, g) {
  const box = document.getElementById("transcript");
  box.hidden = false;
  const head = el("tr", {}, el("th", { text: "t" }), el("th", { class: "l", text: "question" }), el("th", { class: "l", text: "checker" }),
    el("th", { text: "answer" }), el("th", { text: "IG (bits)" }),
    g.c.map((c) => el("th", { class: [c === g.t ? "target" : "", c === g.q ? "guess" : ""].join(" ").trim() || null, text: c })));
  const rows = [el("tr", {}, el("td", { text: "0" }), el("td", { class: "l", text: "(before any question)" }), el("td", {}), el("td", {}), el("td", {}),
    beliefCells(g.b0, g.b0s, g.c.length))];
  g.T.forEach((t, i) => rows.push(el("tr", {}, el("td", { text: i + 1 }), el("td", { class: "l", text: t[0] }),
    el("td", { class: "l " + (t[1] ? "won" : "lost"), text: t[2] || (t[1] ? "accepted" : "rejected") }),
    el("td", { text: t[3] === null ? "-" : t[3] }), el("td", { text: t[4].toFixed(3) }), beliefCells(t[5], t[6], g.c.length))));
  const guess = g.q === null ? "an invalid guess (no candidate named)" : g.q;
  const belief = (v) => (v === null || v === undefined ? "-" : v.toFixed(3));
  const parts = [el("h3", { text: `${data.runs[g.r].label}: game ${g.g}${g.k ? ` (run ${g.k})` : ""}` }),
    el("p", {}, `Hidden object `, el("b", { text: g.o }), `, target `, el("b", { text: g.t }), `. Guess: `, el("b", { text: guess }),
      ` with belief b = ${belief(g.qb)} (soft ${belief(g.qs)}) after ${g.n} question(s)${g.f ? `, forced (${g.f})` : ""}: `,
      el("span", { class: g.s ? "won" : "lost", text: g.s ? "solved" : "lost" }), "."),
    el("table", {}, el("thead", {}, head), el("tbody", {}, rows)),
    el("p", { class: "note", text: "Each cell: the hard belief b_t over the candidates (shade) and the players' soft belief below it. The target's column is outlined, the guess underlined." })];
  if (g.p && data.proofs[g.p]) parts.push(el("details", { open: true }, el("summary", { text: "Proof of the target's rule on the hidden object" }), el("pre", { text: data.proofs[g.p] })));
  else if (g.rh === 0) parts.push(el("p", { class: "note", text: "No rule was matched to the target in this game." }));
  box.replaceChildren(...parts);
  if (box.scrollIntoView) box.scrollIntoView({ block: "nearest" });
}

function renderRules(data) {
  const body = document.querySelector("#rules .body");
  body.append(el("p", { class: "note", text: data.rules_origin }));
  for (const r of data.rules) {
    if (state.affordance !== "" && r.affordance !== state.affordance) continue;
    const summary = el("summary", {}, el("b", { text: r.affordance }),
      ` recall ${pct(r.recall)}% (${r.covered_positives}/${r.positives} positives), precision ${pct(r.precision)}% (${r.false_positives} covered negatives), covers ${r.covered_objects} of ${r.objects} objects: `,
      el("span", { class: "rule-text", text: r.text }));
    const proofs = r.proofs.map((p) => el("details", {}, el("summary", { text: `${p.object}: ${p.label ? "positive" : "negative"}, ${p.covered ? "covered" : "not covered"}` }), el("pre", { text: p.text })));
    body.append(el("details", { class: "rule", "data-affordance": r.affordance }, summary, el("div", {}, proofs)));
  }
}

function renderGaps(data) {
  const body = document.querySelector("#gaps .body");
  const gaps = data.report.kb_gaps;
  if (!gaps) { body.replaceChildren(el("p", { class: "note", text: data.report.kb_gaps_note || "No run was played with rules: no KB-gap ledger." })); return; }
  const counts = Object.entries(gaps.by_status).map(([s, n]) => `${s} ${n}`).join(", ");
  const rows = gaps.top.filter((r) => state.affordance === "" || r.target === state.affordance)
    .map((r) => [String(r.rank), r.target, r.rule, r.object, r.part, `${r.predicate}:${r.value}`, r.games, r.branch, r.game_ids.join(" ")]);
  body.replaceChildren(
    el("p", { text: `${gaps.rows} gaps (${gaps.facts} facts of ${gaps.objects} objects, ${gaps.atoms} atoms) decide ${gaps.games_decidable} of ${gaps.games} games (${gaps.semantics} reading); games by status: ${counts}.` }),
    table(["rank", "target", "rule", "object", "part", "atom", "games", "branch", "game ids"], rows, 6),
    el("p", { class: "note", text: `Top ${gaps.shown} of ${gaps.rows}. ${data.report.kb_gaps_note || ""}` }));
}

function renderRulesFiltered(data) {
  document.querySelector("#rules .body").replaceChildren();
  renderRules(data);
  document.querySelector("#matched .body").replaceChildren();
  renderMatched(data);
}

function setupFilters(data) {
  const player = document.getElementById("f-player");
  player.append(el("option", { value: "", text: "all players" }), ...data.runs.map((r, i) => el("option", { value: String(i), text: r.label })));
  const affordance = document.getElementById("f-affordance");
  const targets = [...new Set(data.games.map((g) => g.t))].sort();
  affordance.append(el("option", { value: "", text: "all affordances" }), ...targets.map((t) => el("option", { value: t, text: t })));
  const update = () => {
    state.player = player.value; state.affordance = affordance.value;
    state.outcome = document.getElementById("f-outcome").value; state.object = document.getElementById("f-object").value.trim();
    state.shown = PAGE;
    renderGames(data); renderAffordances(data); renderRulesFiltered(data); renderGaps(data);
  };
  for (const id of ["f-player", "f-affordance", "f-outcome"]) document.getElementById(id).addEventListener("change", update);
  document.getElementById("f-object").addEventListener("input", update);
  document.getElementById("more").addEventListener("click", () => { state.shown += PAGE; renderGames(data); });
}

async function main() {
  let data;
  try {
    data = await loadData();
  } catch (error) {
    document.getElementById("summary").replaceChildren(el("span", { class: "error", text: `The report's data could not be read: ${error.message}` }));
    return;
  }
  const report = data.report;
  document.getElementById("summary").textContent = `${data.runs.length} runs, ${data.games.length} game records` +
    (data.bench ? ` on the benchmark ${data.bench}` : "") + `; ${report.comparisons.length} paired comparisons.`;
  renderTable1(data); renderTable1WithoutKB(data); renderCoverage(data); renderRuns(data); renderBudget(data);
  renderPairs(data);
  setupFilters(data); renderGames(data); renderAffordances(data); renderMatched(data); renderRules(data); renderGaps(data);
  document.body.dataset.ready = "1";
}

main();
