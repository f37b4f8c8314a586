// The play page: the hero seat hand by hand through the JSON API (the bots act server side),
// the table drawn by the series viewer's own code (felt.js), and the hand log oldest first,
// your own actions included. `holdemjax play` serves it for its sit & go: pageData.api its
// JSON API, the answers' seating the hero's seat and the names at the table.
"use strict";
(() => {
  const d = pageData, base = d.api || `/api/matches/${d.match}/lines/${encodeURIComponent(d.name)}`;
  const fromHash = new URLSearchParams(location.hash.slice(1)).get("key");
  const key = fromHash || localStorage.getItem(`dup:${d.match}:${d.name}`);
  if (fromHash) localStorage.setItem(`dup:${d.match}:${d.name}`, fromHash);
  const H = { "X-Line-Key": key || "" };
  const SUIT = HoldemFelt.SUIT;
  const words = (cards) => cards.map((c) => c[0] + SUIT[c[1]]).join(" ");
  const who = (s) => (s === d.hero ? "you" : `S${s} ${d.bots[s < d.hero ? s : s - 1]}`);

  // Each line with its number as text of its own (a list marker is clipped past 9).
  function log(line, cls) {
    const list = document.getElementById("log");
    const li = document.createElement("li");
    li.append(HoldemFelt.el("span", "n", list.children.length + 1), HoldemFelt.el("span", "t", line));
    if (cls) li.className = cls;
    list.append(li);  // oldest first
    list.scrollTop = list.scrollHeight;
  }

  // What the table shows of a hand that went on after your last decision: its last view with
  // every later action, card and the result played on it (the stacks after the pot), the
  // cards shown at its showdown, and your result (without a seat to act).
  // facing: a bet to call on this street (the blinds before the flop, none on a new street)
  let lastView = null, reveal = {}, result = "", facing = true;
  function onView(v, e) {
    if (e.type === "action") {
      v.stacks[e.seat] -= e.added; v.pot += e.added; v.bets[e.seat] = e.to;
      if (e.code === 0) v.folded[e.seat] = true;
      if (e.code >= 2 && v.stacks[e.seat] === 0) v.allin[e.seat] = true;
    } else if (e.type === "board") {
      v.board = v.board.concat(e.cards); v.bets = v.bets.map(() => 0);
    } else if (e.type === "result") {
      v.stacks = e.stacks.slice(); v.won = e.winnings.slice();
      v.bets = v.bets.map(() => 0); v.pot = 0;
    }
  }
  function events(list) {
    for (const e of list) {
      if (lastView && !lastView.won) onView(lastView, e);  // until its hand's result
      if (e.type === "hand_start") { reveal = {}; result = ""; facing = true; }
      if (e.type === "board") facing = false;
      if (e.type === "showdown") for (const c of e.cards) reveal[c[0]] = c.slice(1);
      if (e.type === "hand_over") result = `hand ${e.hand + 1}: you ${e.net > 0 ? "+" : ""}${e.net}`;
      if (e.type === "hand_start") log(`hand ${e.hand + 1}: you hold ${words(e.hole)}`, "hand");
      else if (e.type === "action") {
        const mine = e.seat === d.hero;
        const said = HoldemFelt.actionWords(e.code, e.to, e.added, facing, mine);
        if (e.code === 3) facing = true;
        log(`${who(e.seat)} ${said}${e.auto ? " (" + e.auto + ")" : ""}`, mine ? "mine" : "");
      }
      else if (e.type === "board") log(`board: ${words(e.cards)}`);
      else if (e.type === "showdown") log("showdown: " + e.cards.map((c) => `${who(c[0])} ${words(c.slice(1))}`).join(", "));
      else if (e.type === "hand_over") log(`hand ${e.hand + 1} over: you ${e.net > 0 ? "+" : ""}${e.net}`, "over");
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

  function table(v, over) {
    const seats = v.stacks.map((stack, s) => {
      const marks = [s === v.button ? "btn" : "", s === v.sb && v.sb !== v.bb ? "sb" : "", s === v.bb ? "bb" : ""].filter(Boolean);
      const won = over && v.won ? v.won[s] : 0;
      const classes = [s === v.seat && !over ? "actor" : "", won > 0 ? "winner" : "", v.folded[s] ? "folded" : "", s === d.hero ? "hero" : ""].filter(Boolean);
      return {
        name: s === d.hero ? `${d.name} (you)` : who(s), stack: stack + " chips", bet: v.bets[s],
        cards: s === d.hero ? v.hole : reveal[s] || (v.folded[s] ? [] : [null, null]), marks, classes,
        status: won > 0 ? `wins ${won}` : v.folded[s] ? "folded" : v.allin[s] ? "all-in" : "",
      };
    });
    HoldemFelt.draw(document.getElementById("table-view"), document.getElementById("board"),
                    document.getElementById("pot"), { seats, board: v.board, pot: v.pot });
    if (over && result) text("pot", result);
    const hole = document.getElementById("hole");
    hole.replaceChildren(...v.hole.map(HoldemFelt.card));
  }

  let poll = null, ticking = null, left = null;
  function clock(seconds) {
    clearInterval(ticking); left = seconds;
    if (seconds === undefined) { text("clock", ""); return; }
    const show = () => text("clock", `${left} s left for ${d.clockFor || "this hand"} (then the table checks or folds for you)`);
    show();
    ticking = setInterval(() => { if (left > 0) { left -= 1; show(); } }, 1000);
  }

  let turn = 0;
  function show(st) {
    document.body.dataset.turn = ++turn;  // one more answer shown (tests wait on it)
    if (st.seating) Object.assign(d, st.seating);  // a sit & go: your seat, the names
    events(st.events || []);
    text("progress", st.hands === null ? `${st.hands_done} hands played`
                                       : `${st.hands_done} of ${st.hands} hands played`);
    const acts = document.getElementById("actions"); acts.innerHTML = "";
    const waiting = document.getElementById("waiting");
    waiting.hidden = st.status !== "waiting";
    clearTimeout(poll);
    clock(st.clock);
    document.body.dataset.status = st.status;
    if (st.status !== "decision" && lastView) table(lastView, true);
    if (st.status === "waiting") {
      waiting.textContent = st.waiting_for === "field"
        ? "Waiting for others to join: every hand is dealt to everyone at the same time."
        : `Waiting for others to finish this hand (${st.behind} still playing it): the next hand opens for everyone at once.`;
      poll = setTimeout(ask, 1500);
      return;
    }
    if (st.status !== "decision") {
      text("note", st.note || (st.status === "finished" ? "Your line is complete. Results stay sealed until the match closes."
           : st.status === "paused" ? "Paused: open this page again to resume." : "The match closed: your line is kept as played."));
      if (st.link) {  // where the results are (a sit & go: its replay)
        const a = document.createElement("a");
        a.href = st.link.href; a.textContent = st.link.text; a.id = "result-link";
        document.getElementById("note").append(a);
      }
      return;
    }
    const v = st.view;
    decision = st.decision;
    document.body.dataset.decision = st.decision;
    document.body.dataset.hand = v.hand;
    lastView = v;
    facing = Math.max(...v.bets) > 0;
    table(v, false);
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
    if (d.pause === false) return;  // a sit & go is not paused
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

  // Ask for the line's state; while waiting, a refusal (the server busy, the network gone)
  // only delays the next question.
  function ask() {
    api("GET", base, undefined, H).then(show).catch((err) => {
      text("note", err.message);
      if (document.body.dataset.status === "waiting") poll = setTimeout(ask, 3000);
    });
  }
  ask();
})();
