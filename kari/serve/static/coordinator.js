/* kari serve: the coordinator's page (progress, participants, SR so far, agreement, the report). Every text goes
   through textContent, never innerHTML. */
"use strict";

const token = location.pathname.split("/")[2] || "";
const api = `/api/c/${encodeURIComponent(token)}`;
const $ = (id) => document.getElementById(id);
const pct = (v) => (v == null ? "-" : (100 * v).toFixed(1));
const ci = (c) => (c ? `[${pct(c[0])}, ${pct(c[1])}]` : "");

function row(cells, left = 1) {
  const tr = document.createElement("tr");
  cells.forEach((value, i) => {
    const td = document.createElement(i < left ? "th" : "td");
    if (i < left) td.className = "l";
    td.textContent = value == null ? "-" : String(value);
    tr.append(td);
  });
  return tr;
}

function stateOf(p) {
  if (p.withdrawn) return "withdrawn";
  if (!p.claimed) return "link not opened";
  if (!p.consented) return "opened, no consent yet";
  if (p.games_done === p.games_total) return "finished";
  return p.in_game ? `playing game ${p.in_game}` : "between games";
}

function render(view) {
  const g = view.progress;
  $("summary").textContent = `${view.mode === "oracle" ? `People answer as Oracle; ${view.questioner} asks` : "People play the Questioner"} · ${view.per_game} participant(s) per game`;
  $("progress").tBodies[0].replaceChildren(
    row(["participants", `${g.participants} (${g.claimed} links opened, ${g.consented} consented, ${g.withdrawn} withdrawn, ${g.finished_all} finished)`]),
    row(["games played", `${g.plays_finished} of ${g.plays} planned plays`]),
    row(["games complete", `${g.games_complete} of ${g.games} games played by all their participants`]));
  const s = view.scores;
  $("scores").textContent = s ? `SR ${pct(s.success_rate)}% ${ci(s.success_rate_ci)} over ${s.games} games (Wilson), ${ci(s.success_rate_ci_participants)} over ${s.participants} participants (cluster bootstrap); ${s.records} games played; mean turns of solved games ${s.avg_turns_solved == null ? "-" : s.avg_turns_solved.toFixed(2)}.` : "No game finished yet.";
  const agreement = view.agreement;
  $("agreement-section").hidden = view.mode !== "oracle";
  if (agreement) {
    const cells = (name, c) => row([name, c.answers, `${pct(c.agreement)} ${ci(c.agreement_ci)}`, ci(c.agreement_ci_participants), c.kappa == null ? "-" : c.kappa.toFixed(3)]);
    $("agreement").tBodies[0].replaceChildren(cells("all", agreement.overall), ...Object.entries(agreement.by_kind).map(([k, c]) => cells(k, c)));
  }
  $("command").textContent = view.report.command;
  $("build").hidden = !view.can_report;
  $("report-link").hidden = !view.report.url;
  if (view.report.url) $("report-link").href = view.report.url;
  $("join").textContent = `${location.origin}/join`;
  $("participants").tBodies[0].replaceChildren(...view.participants.map((p) => row([p.id, stateOf(p), `${p.games_done} / ${p.games_total}`, `${location.origin}${p.link}`])));
}

async function refresh() {
  try {
    const reply = await fetch(api, { cache: "no-store" });
    const data = await reply.json();
    if (!reply.ok) throw new Error(data.error || String(reply.status));
    render(data);
    $("error").hidden = true;
    document.body.dataset.ready = "1";
  } catch (error) {
    $("error").textContent = error.message;
    $("error").hidden = false;
  }
}

document.addEventListener("DOMContentLoaded", () => {
  $("build").addEventListener("click", async () => {
    $("build").disabled = true;
    $("build").textContent = "Building the report ...";
    try {
      const reply = await fetch(`${api}/report`, { method: "POST", headers: { "Content-Type": "application/json" }, body: "{}" });
      const data = await reply.json();
      if (!reply.ok) throw new Error(data.error || String(reply.status));
      await refresh();
    } catch (error) {
      $("error").textContent = error.message;
      $("error").hidden = false;
    } finally {
      $("build").disabled = false;
      $("build").textContent = "Build the report (kari report --html)";
    }
  });
  refresh();
  setInterval(refresh, 5000);
});
