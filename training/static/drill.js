// The explorer's drills (docs/explore.md): a spot from the policy's tournaments, the person's
// action, the grade (the policy's probability of it, the value lost against the policy's
// most likely action in chips and tournament score), the summary so far.
"use strict";

const $ = (id) => document.getElementById(id);
let spot = null;

function bb(x) { return `${+x.toFixed(2)} BB`; }

function show(s) {
  spot = s;
  $("spot-id").textContent = s.spot;
  $("street").textContent = `${s.street}, hand ${s.hand}: you are ${s.position || "to act"}`;
  $("drill-hole").textContent = s.hole.join(" ");
  $("drill-board").textContent = s.board.length ? s.board.join(" ") : "(none yet)";
  $("pot-line").textContent = `pot ${bb(s.pot_bb)}, to call ${bb(s.to_call_bb)}`;
  const body = $("seats").querySelector("tbody");
  body.replaceChildren(...s.seats.map((x) => {
    const tr = document.createElement("tr");
    if (x.you) tr.className = "you";
    const state = x.you ? "you" : (!x.in_hand ? "out of the hand" : (x.folded ? "folded" : ""));
    for (const text of [x.position || `seat ${x.seat}`, bb(x.stack_bb), bb(x.bet_bb), state]) {
      const td = document.createElement("td");
      td.textContent = text;
      tr.appendChild(td);
    }
    return tr;
  }));
  $("legal").replaceChildren(...s.legal.map((a) => {
    const b = document.createElement("button");
    b.type = "button";
    b.dataset.action = a.action;
    b.textContent = a.raise_to_bb > 0 ? `${a.action} (to ${+a.raise_to_bb.toFixed(2)})` : a.action;
    b.addEventListener("click", () => answer(a.action));
    return b;
  }));
  $("grade").innerHTML = '<span class="muted">answer the spot</span>';
}

function gradeText(g) {
  const p = `${(100 * g.probability).toFixed(1)}%`;
  const lost = (x, unit) => (x > 0 ? `lost ${x.toFixed(unit === "score" ? 4 : 1)}`
    : `gained ${(-x).toFixed(unit === "score" ? 4 : 1)}`) + ` ${unit}`;
  return [
    ["verdict", g.agreed ? "the policy's choice" : `the policy prefers ${g.best}`],
    ["policy's probability", `${p} of ${g.action} (${g.exact ? "exact" : "sampled"})`],
    ["chips", `${lost(g.chips.lost, "chips")} (${bb(g.chips.lost_bb)})`],
    ["tournament score", lost(g.score.lost, "score")],
    ["how", `${g.rollouts} rollouts of the rest of the hand per action`],
  ];
}

async function answer(action) {
  $("status").textContent = "grading...";
  const r = await fetch("/api/drill/answer", {method: "POST",
    headers: {"Content-Type": "application/json"},
    body: JSON.stringify({spot: spot.spot, action})});
  const g = await r.json();
  if (!r.ok) { $("status").textContent = g.detail; return; }
  const table = document.createElement("table");
  table.id = "grade-table";
  for (const [k, v] of gradeText(g)) {
    const tr = table.insertRow();
    tr.dataset.kind = k;
    tr.insertCell().textContent = k;
    tr.insertCell().textContent = v;
  }
  $("grade").replaceChildren(table);
  for (const b of $("legal").querySelectorAll("button")) b.disabled = true;
  $("status").textContent = "";
  await refresh();
}

async function refresh() {
  const s = await (await fetch("/api/drill/summary")).json();
  $("summary").textContent = s.spots ? `${s.spots} spots, agreement ` +
    `${(100 * s.agreement).toFixed(0)}%, average lost ${s.average_lost_chips.toFixed(1)} chips ` +
    `and ${s.average_lost_score.toFixed(4)} score` : "no spot answered yet";
}

async function next() {
  $("status").textContent = "dealing...";
  const r = await fetch("/api/drill/spot");
  const s = await r.json();
  if (!r.ok) { $("status").textContent = s.detail; return; }
  show(s);
  $("status").textContent = "";
}

$("next-spot").addEventListener("click", next);
next();
refresh();
