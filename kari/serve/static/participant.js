/* kari serve: a participant's page. It holds no data of its own: it fetches the participant's state and sends
   each step as JSON. Every text it shows goes through textContent, never innerHTML. */
"use strict";

const token = location.pathname.split("/")[2] || "";
const api = `/api/p/${encodeURIComponent(token)}`;
const $ = (id) => document.getElementById(id);
let state = null;
let busy = false;

function show(id, visible) { $(id).hidden = !visible; }

function text(id, value) { $(id).textContent = value == null ? "" : String(value); }

function item(children) {
  const li = document.createElement("li");
  for (const child of children) li.append(child instanceof Node ? child : document.createTextNode(String(child)));
  return li;
}

function span(cls, value) {
  const node = document.createElement("span");
  node.className = cls;
  node.textContent = value;
  return node;
}

async function call(path, body) {
  const options = body === undefined ? { cache: "no-store" }
    : { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body), cache: "no-store" };
  const reply = await fetch(api + path, options);
  const data = await reply.json().catch(() => ({ error: `the server answered ${reply.status}` }));
  if (!reply.ok) throw new Error(data.error || `the server answered ${reply.status}`);
  return data;
}

async function step(path, body) {
  if (busy) return;
  busy = true;
  document.body.dataset.busy = "1";
  try {
    render(await call(path, body));
    show("error", false);
  } catch (error) {
    text("error", error.message);
    show("error", true);
    try { render(await call("")); } catch (_) { /* the message above says enough */ }
  } finally {
    busy = false;
    document.body.dataset.busy = "0";
  }
}

function renderResult(last, mode) {
  show("result", Boolean(last));
  if (!last) return;
  text("result-title", `Game ${last.number}: ${last.success ? "solved" : "not solved"}`);
  const who = mode === "oracle" ? "The computer player" : "You";
  const guess = last.guess == null ? `${who} made no valid guess` : `${who} guessed ${last.guess}`;
  text("result-text", `${guess}; the answer was ${last.target}${last.target_description ? ` (${last.target_description})` : ""}, after ${last.turns} question${last.turns === 1 ? "" : "s"}.`);
  text("result-object", last.object ? `The hidden object was: ${last.object.name}${last.object.description ? ` (${last.object.description})` : ""}.` : "");
}

function renderTurns(game, mode) {
  const list = $("turns");
  list.replaceChildren();
  for (const turn of game.turns) {
    if (mode === "oracle") {
      list.append(item([span("question", turn.question), " ", span("answer", turn.answer === "yes" ? "Yes" : "No")]));
    } else if (turn.accepted) {
      list.append(item([span("question", turn.question), " ", span("reading", `(read as ${turn.reading.join(", ")})`), " ",
        span("answer", turn.answer === "yes" ? "Yes" : "No")]));
    } else {
      const why = turn.flag ? `it asks about the object's ${turn.flag.toLowerCase()}` : (turn.reason || "not one property");
      list.append(item([span("question", turn.question), " ", span("rejected", `rejected: ${why}`)]));
    }
  }
}

function renderPlay(view) {
  const game = view.game;
  const oracle = view.mode === "oracle";
  text("game-title", `Game ${game.number} of ${view.games_total}`);
  show("instructions-questioner", !oracle);
  show("instructions-oracle", oracle);
  $("instructions").open = game.number === 1;
  show("object", oracle);
  show("candidates", !oracle);
  renderTurns(game, view.mode);
  if (oracle) {
    text("object-name", game.object.name);
    text("object-description", game.object.description);
    show("pending", Boolean(game.pending));
    text("pending-question", game.pending ? game.pending.question : "");
    show("ask-form", false);
    show("forced", false);
    text("turns-left", "");
    return;
  }
  const list = $("candidate-list");
  list.replaceChildren();
  for (const candidate of game.candidates) {
    const button = document.createElement("button");
    button.className = "guess";
    button.dataset.candidate = candidate.id;
    button.textContent = "Guess";
    button.addEventListener("click", () => {
      if (confirm(`Your final guess for this game: ${candidate.id}?`)) step("/guess", { game: game.number, candidate: candidate.id });
    });
    list.append(item([span("candidate", candidate.id), candidate.description ? span("description", ` - ${candidate.description}`) : "", " ", button]));
  }
  show("ask-form", !game.forced);
  show("pending", false);
  show("forced", Boolean(game.forced));
  text("forced", game.forced === "rejections" ? "Too many rejected questions in a row: make your guess." : "No questions left: make your guess.");
  text("turns-left", `${game.turns_left} question${game.turns_left === 1 ? "" : "s"} left`);
  $("ask-form").dataset.turn = String(game.next_turn);
}

function render(view) {
  state = view;
  document.body.dataset.status = view.status;
  for (const id of ["consent", "ready", "play", "done", "withdrawn", "result"]) show(id, false);
  show("footer", view.status !== "withdrawn");
  text("progress", view.status === "withdrawn" ? "" : `Participant ${view.participant} · ${view.games_done} of ${view.games_total} games played`);
  if (view.status === "consent") {
    text("consent-text", view.consent);
    show("consent", true);
    return;
  }
  if (view.status === "withdrawn") { show("withdrawn", true); return; }
  renderResult(view.last, view.mode);
  if (view.status === "playing") {
    show("result", false);
    show("play", true);
    renderPlay(view);
  } else if (view.status === "ready") {
    text("start", `Start game ${view.next} of ${view.games_total}`);
    show("ready", true);
  } else if (view.status === "done") {
    show("done", true);
  }
}

function answer(value) {
  const game = state && state.game;
  if (game && game.pending) step("/answer", { game: game.number, turn: game.pending.turn, answer: value });
}

document.addEventListener("DOMContentLoaded", () => {
  $("agree").addEventListener("click", () => step("/consent", {}));
  $("disagree").addEventListener("click", () => { show("declined", true); });
  $("start").addEventListener("click", () => step("/start", { game: state.next }));
  $("ask-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const question = $("question").value.trim();
    if (!question || !state || !state.game) return;
    step("/ask", { game: state.game.number, turn: Number($("ask-form").dataset.turn), question }).then(() => {
      if ($("error").hidden) $("question").value = "";
      $("question").focus();
    });
  });
  $("yes").addEventListener("click", () => answer("yes"));
  $("no").addEventListener("click", () => answer("no"));
  $("withdraw").addEventListener("click", () => {
    if (confirm("Withdraw from the study? Every record of your games will be deleted.")) step("/withdraw", { confirm: true });
  });
  step("");
});
