// The play page: the hero seat hand by hand through the JSON API (the bots act server side).
"use strict";
(() => {
  const d = pageData, base = `/api/matches/${d.match}/lines/${encodeURIComponent(d.name)}`;
  const fromHash = new URLSearchParams(location.hash.slice(1)).get("key");
  const key = fromHash || localStorage.getItem(`dup:${d.match}:${d.name}`);
  if (fromHash) localStorage.setItem(`dup:${d.match}:${d.name}`, fromHash);
  const H = { "X-Line-Key": key || "" };
  const SUIT = { c: "♣", d: "♦", h: "♥", s: "♠" };
  const card = (c) => `<span class="card">${c[0]}${SUIT[c[1]]}</span>`;
  const VERB = ["folds", "checks", "calls", "raises to"];
  const who = (s) => (s === d.hero ? "you" : `S${s} ${d.bots[s < d.hero ? s : s - 1]}`);

  function log(line) {
    const li = document.createElement("li"); li.textContent = line;
    document.getElementById("log").prepend(li);
  }

  function events(list) {
    for (const e of list) {
      if (e.type === "hand_start") log(`hand ${e.hand + 1}: you hold ${e.hole.join(" ")}`);
      else if (e.type === "action") log(`${who(e.seat)} ${VERB[e.code]}${e.code >= 2 ? " " + (e.code === 3 ? e.to : e.added) : ""}${e.auto ? " (" + e.auto + ")" : ""}`);
      else if (e.type === "board") log(`board: ${e.cards.join(" ")}`);
      else if (e.type === "showdown") log("showdown: " + e.cards.map((c) => `${who(c[0])} ${c[1]} ${c[2]}`).join(", "));
      else if (e.type === "hand_over") log(`hand ${e.hand + 1} over: you ${e.net > 0 ? "+" : ""}${e.net}`);
    }
  }

  // Every decision comes with its id (st.decision) and an action names it, so the server plays
  // it once; while a request is in flight every control is disabled (a double click sends one).
  let decision = null, busy = false;
  function controls(disabled) {
    for (const el of document.querySelectorAll("#actions button, #actions input")) el.disabled = disabled;
  }

  function button(label, action, amount) {
    const b = document.createElement("button");
    b.textContent = label; b.dataset.action = action;
    b.addEventListener("click", () => send(action, amount === undefined ? 0 : amount()));
    document.getElementById("actions").append(b);
  }

  let turn = 0;
  function show(st) {
    document.body.dataset.turn = ++turn;  // one more answer shown (tests wait on it)
    events(st.events || []);
    text("progress", `${st.hands_done} of ${st.hands} hands played`);
    const acts = document.getElementById("actions"); acts.innerHTML = "";
    if (st.status !== "decision") {
      document.getElementById("table").innerHTML = "";
      text("note", st.status === "finished" ? "Your line is complete. Results stay sealed until the match closes."
           : st.status === "paused" ? "Paused: open this page again to resume." : "The match closed: your line is kept as played.");
      document.body.dataset.status = st.status;
      return;
    }
    const v = st.view;
    decision = st.decision;
    document.body.dataset.status = "decision";
    document.body.dataset.decision = st.decision;
    document.body.dataset.hand = v.hand;
    let rows = "<table><tr><th>seat</th><th>player</th><th>stack</th><th>bet</th><th></th></tr>";
    for (let s = 0; s < v.stacks.length; s++) {
      const pos = [s === v.button ? "BTN" : "", s === v.sb ? "SB" : "", s === v.bb ? "BB" : ""].join(" ").trim();
      rows += `<tr class="${s === v.seat ? "to-act" : ""}"><td>${s} ${pos}</td><td>${who(s)}</td><td>${v.stacks[s]}</td><td>${v.bets[s]}</td><td>${v.folded[s] ? "folded" : v.allin[s] ? "all-in" : ""}</td></tr>`;
    }
    document.getElementById("table").innerHTML = rows + "</table>";
    document.getElementById("hole").innerHTML = "you: " + v.hole.map(card).join(" ");
    document.getElementById("board").innerHTML = "board: " + (v.board.map(card).join(" ") || "-");
    text("pot", `pot ${v.pot}`);
    text("note", "");
    const lg = v.legal;
    button("fold", "fold");
    if (lg.check) button("check", "check"); else button(`call ${lg.call}`, "call");
    if (lg.raise) {
      const input = document.createElement("input");
      input.type = "number"; input.id = "amount"; input.min = lg.raise[0]; input.max = lg.raise[1]; input.value = lg.raise[0];
      acts.append(input);
      button("raise to", "raise", () => parseInt(input.value, 10));
      button(`all-in ${lg.raise[1]}`, "raise", () => lg.raise[1]);
    }
    const pause = document.createElement("button");
    pause.textContent = "pause"; pause.id = "pause";
    pause.addEventListener("click", async () => {
      if (busy) return;
      busy = true; controls(true);
      try { show(await api("POST", base + "/pause", {}, H).then((r) => Object.assign(r, { hands: st.hands }))); }
      catch (err) { text("note", err.message); controls(false); }
      finally { busy = false; }
    });
    acts.append(pause);
  }

  async function send(action, amount) {
    if (busy) return;
    busy = true; controls(true);
    try { show(await api("POST", base + "/act", { decision, action, amount }, H)); }
    catch (err) { text("note", err.message); controls(false); }
    finally { busy = false; }
  }

  api("GET", base, undefined, H).then(show).catch((err) => text("note", err.message));
})();
