
"use strict";
(function () {
  const DATA = JSON.parse(document.getElementById("series-data").textContent);
  const results = DATA.results || {};
  const replay = DATA.replay || {};
  const tours = Array.isArray(replay.tournaments) ? replay.tournaments : [];
  const SUIT = HoldemFelt.SUIT;
  const STREET = ["Pre-flop", "Flop", "Turn", "River"];
  const AUTO = { timeout: "timeout", away: "away", fault: "benched", bad_reply: "bad reply" };
  const $ = (id) => document.getElementById(id);

  // Every text a policy controls goes through textContent (HoldemFelt.el): never markup.
  const { el, avatar, card } = HoldemFelt;
  function ordinal(n) {  // 1st 2nd 3rd 4th ... 11th 12th 13th ... 21st
    const ends = ["th", "st", "nd", "rd"], v = n % 100;
    return n + (ends[(v - 20) % 10] || ends[v] || ends[0]);
  }
  const fixed = (x) => (typeof x === "number" ? x.toFixed(3) : "?");

  const cardWords = (cards) => cards.map((c) => c.charAt(0) + (SUIT[c.charAt(1)] || "")).join(" ");

  // ------------------------------------------------------------------------------ standings
  function renderStandings() {
    const slots = (results.slots || []).slice();
    slots.sort((a, b) => (b.score - a.score) || (a.slot - b.slot));
    const body = document.querySelector("#standings tbody");
    // run with --luck: each slot's score with the luck of the cards taken out, beside the score
    const lucky = slots.length > 0 && slots.every((s) => s.luck && typeof s.luck === "object");
    if (!lucky) document.querySelectorAll("#standings th.luck").forEach((th) => th.remove());
    let rank = 0;
    slots.forEach((s, i) => {
      if (i === 0 || s.score !== slots[i - 1].score) rank = i + 1;  // ties share a rank
      const tr = el("tr");
      tr.dataset.slot = s.slot;
      tr.append(el("td", "num rank", rank));
      const who = el("td", "player");
      who.append(avatar(s.alias, s.avatar), el("span", "alias", s.alias));
      who.title = "slot " + s.slot + ": " + s.alias + ", avatar " + s.avatar;
      tr.append(who);
      const policy = el("td", "policy", String(s.policy || "").split(/[\\/]/).pop());
      policy.title = (s.policy || "") + (s.sha256 ? "\nsha256 " + s.sha256 : "");
      tr.append(policy);
      tr.append(el("td", "num score", fixed(s.score) + " \u00b1 " + fixed(s.stderr)));
      if (lucky) {
        tr.append(el("td", "num luck", fixed(s.luck.score) + " \u00b1 " + fixed(s.luck.stderr)));
      }
      tr.append(placesCell(s.places || {}));
      tr.append(el("td", "num chips", s.chips_won));
      tr.append(el("td", "num timeouts", s.timeouts));
      const faults = (s.faults || []).map((f) => "t" + (f.faulted_at + 1) + ": " + f.cause +
        (f.detail ? " (" + f.detail + ")" : ""));
      const fc = el("td", "faults", faults.length ? faults.join("; ").slice(0, 120) : "\u2014");
      fc.title = faults.join("\n");
      tr.append(fc);
      body.append(tr);
    });
  }

  function placesCell(places) {
    const keys = Object.keys(places).map(Number).sort((a, b) => a - b);
    const most = Math.max(1, ...keys.map((k) => places[k]));
    const td = el("td", "places");
    const hist = el("span", "hist");
    for (const k of keys) {
      const col = el("span", "col");
      const bar = el("span", "bar");
      bar.style.height = Math.round(14 * places[k] / most) + "px";
      col.title = places[k] + " \u00d7 " + ordinal(k);
      col.append(el("span", null, places[k] || ""), bar, el("span", null, k));
      hist.append(col);
    }
    td.append(hist);
    return td;
  }

  // ------------------------------------------------------------------- one hand, step by step
  // Seat flags that outlive a hand (away, benched), by slot, at the start of every hand.
  const carried = (function () {
    const nSlots = (replay.slots || []).length;
    const away = new Array(nSlots).fill(false), benched = new Array(nSlots).fill(false);
    return tours.map((t) => (t.hands || []).map((h) => {
      const start = { away: away.slice(), benched: benched.slice() };
      for (const e of h.events || []) {
        const slot = (t.player_at_seat || [])[e.seat];
        if (e.type === "away") away[slot] = true;
        if (e.type === "back") away[slot] = false;
        if (e.type === "faulted") benched[slot] = true;
      }
      return start;
    }));
  })();

  const cache = new Map();

  // The hand as a list of steps: the blinds, then every event but chat and emotes (chat lines
  // hang on the step they follow). Each step holds a full snapshot of the table.
  function buildHand(t, k) {
    const key = t + ":" + k;
    if (cache.has(key)) return cache.get(key);
    const tour = tours[t], hand = tour.hands[k];
    const names = tour.aliases || [];
    const n = (hand.stacks || []).length;
    const bySlot = (flags) => (tour.player_at_seat || []).map((slot) => !!flags[slot]);
    const flags = carried[t][k];
    const st = {
      stacks: hand.stacks.slice(), bets: new Array(n).fill(0),
      inHand: hand.hole.map((h) => h !== null && h !== undefined),
      folded: new Array(n).fill(false), allin: new Array(n).fill(false),
      away: bySlot(flags.away), benched: bySlot(flags.benched), place: new Array(n).fill(0),
      said: new Array(n).fill(""), board: [], pot: 0, actor: -1, won: null, showdown: false,
    };
    const [small, big, ante] = hand.blinds;
    const post = (seat, amount) => {
      const paid = Math.min(st.stacks[seat], amount);
      st.stacks[seat] -= paid; st.pot += paid;
      if (st.stacks[seat] === 0) st.allin[seat] = true;
      return paid;
    };
    // As the rules engine posts them: each blind all-in when the stack is short, no small blind
    // when its seat is not dealt in (a dead small blind), and the big-blind ante from what the
    // big blind has left after the blind, as dead money in the pot.
    const words = [];
    if (hand.sb !== hand.bb && st.inHand[hand.sb]) {
      st.bets[hand.sb] = post(hand.sb, small);
      words.push(names[hand.sb] + " posts SB " + st.bets[hand.sb]);
    }
    if (st.inHand[hand.bb]) {
      st.bets[hand.bb] = post(hand.bb, big);
      words.push(names[hand.bb] + " posts BB " + st.bets[hand.bb]);
      if (ante > 0) words.push("ante " + post(hand.bb, ante));
    }
    const steps = [];
    const snap = (text, kind) => {
      const copy = JSON.parse(JSON.stringify(st));
      steps.push({ state: copy, text: text, kind: kind, chat: [] });
      st.actor = -1;
    };
    snap("Blinds " + small + "/" + big + (ante ? " ante " + ante : "") + ": " + words.join(", "),
         "hand_start");
    for (const e of hand.events || []) {
      const who = names[e.seat];
      if (e.type === "hand_start") continue;
      if (e.type === "chat" || e.type === "emote") {
        steps[steps.length - 1].chat.push(e);
        continue;
      }
      if (e.type === "action") {
        const facing = Math.max(...st.bets);
        st.stacks[e.seat] -= e.added; st.pot += e.added; st.bets[e.seat] = e.to;
        st.actor = e.seat;
        if (e.code === 0) st.folded[e.seat] = true;
        let text = who + " " + HoldemFelt.actionWords(e.code, e.to, e.added, facing > 0, false);
        if (e.code >= 2 && st.stacks[e.seat] === 0) {
          st.allin[e.seat] = true;
          text += " (all-in)";
        }
        if (e.auto) text += " (" + (AUTO[e.auto] || e.auto) + ")";
        st.said[e.seat] = text.slice(who.length + 1);
        snap(text, "action");
      } else if (e.type === "board") {
        st.board = st.board.concat(e.cards);
        st.bets.fill(0); st.said.fill("");
        snap((STREET[e.street] || "Board") + ": " + cardWords(e.cards), "board");
      } else if (e.type === "showdown") {
        st.showdown = true; st.bets.fill(0); st.said.fill("");
        snap("Showdown: " + e.cards.map((c) => names[c[0]] + " " + cardWords(c.slice(1)))
          .join(", "), "showdown");
      } else if (e.type === "result") {
        st.won = e.winnings; st.stacks = e.stacks.slice(); st.bets.fill(0); st.pot = 0;
        const wins = e.winnings.map((w, s) => [w, s]).filter((x) => x[0] > 0);
        snap(wins.map((x) => names[x[1]] + " wins " + x[0]).join(", ") || "No winner", "result");
      } else if (e.type === "eliminated") {
        st.place[e.seat] = e.place;
        snap(e.place === 1 ? who + " wins the tournament"
             : who + " is out in " + ordinal(e.place) + " place", "eliminated");
      } else if (e.type === "away" || e.type === "back") {
        st.away[e.seat] = e.type === "away";
        snap(who + (e.type === "away" ? " is away (two timeouts)" : " is back"), e.type);
      } else if (e.type === "faulted") {
        st.benched[e.seat] = true;
        snap(who + " is benched (fault)", "faulted");
      } else {
        snap("(" + String(e.type) + ")", "other");  // a newer event type: shown, not understood
      }
    }
    const built = { tour: tour, hand: hand, steps: steps };
    cache.set(key, built);
    return built;
  }

  // ------------------------------------------------------------------------------ the table
  let cur = { t: 0, h: 0, s: 0 };

  function renderTable(built, step) {
    const { tour, hand } = built;
    const st = step.state, n = st.stacks.length;
    const seats = [];
    for (let seat = 0; seat < n; seat++) {
      const out = !st.inHand[seat];
      const classes = [];
      if (st.actor === seat) classes.push("actor");
      if (st.won && st.won[seat] > 0) classes.push("winner");
      if (st.folded[seat]) classes.push("folded");
      if (out || st.place[seat] > 1) classes.push("out");
      if (st.benched[seat]) classes.push("benched");
      const slot = (tour.player_at_seat || [])[seat];
      const status = [];
      if (out) status.push("out");
      if (st.place[seat] === 1) status.push("winner");
      else if (st.place[seat]) status.push("out \u00b7 " + ordinal(st.place[seat]));
      if (st.folded[seat]) status.push("folded");
      if (st.allin[seat] && !st.place[seat]) status.push("all-in");
      if (st.away[seat]) status.push("away");
      if (st.benched[seat]) status.push("benched");
      if (st.won && st.won[seat] > 0) status.push("wins " + st.won[seat]);
      else if (st.said[seat] && !st.folded[seat]) status.push(st.said[seat]);
      const marks = [];
      if (seat === hand.button) marks.push("btn");
      if (seat === hand.sb && hand.sb !== hand.bb) marks.push("sb");
      if (seat === hand.bb) marks.push("bb");
      seats.push({
        name: (tour.aliases || [])[seat], avatar: ((replay.slots || [])[slot] || {}).avatar,
        stack: out ? "\u2014" : st.stacks[seat] + " chips", cards: hand.hole[seat] || [],
        status: status.join(" \u00b7 "), classes: classes, marks: marks, bet: st.bets[seat],
      });
    }
    HoldemFelt.draw($("table-view"), $("board"), $("pot"), { seats: seats, board: st.board, pot: st.pot });
  }

  function renderLists(built) {
    const list = $("actions");
    list.replaceChildren();
    built.steps.forEach((step, i) => {
      const li = el("li", i === cur.s ? "current" : i > cur.s ? "future" : "", step.text);
      li.dataset.step = i;
      li.addEventListener("click", () => go(cur.t, cur.h, i));
      list.append(li);
    });
    const on = list.children[cur.s];
    if (on) list.scrollTop = Math.max(0, on.offsetTop - list.clientHeight / 2);
    const chat = $("chat");
    chat.replaceChildren();
    const names = built.tour.aliases || [];
    const lines = built.steps.slice(0, cur.s + 1).reduce((n, step) => n + step.chat.length, 0);
    if (!lines) chat.append(el("li", "emote", "no table talk yet this hand"));
    for (const step of built.steps.slice(0, cur.s + 1)) {
      for (const e of step.chat) {
        const li = el("li", e.type === "emote" ? "emote" : e.say ? "say" : "");
        li.append(el("span", "who", names[e.seat]),
                  el("span", "text", e.type === "emote" ? "*" + e.emote + "*" : e.text));
        chat.append(li);
      }
    }
    chat.scrollTop = chat.scrollHeight;
  }

  function fillHands() {
    const pick = $("hand");
    pick.replaceChildren();
    (tours[cur.t].hands || []).forEach((h, i) => {
      const o = el("option", null, "Hand " + (h.hand + 1) + " \u00b7 " + h.blinds[0] + "/" +
                   h.blinds[1] + (h.blinds[2] ? " ante " + h.blinds[2] : ""));
      o.value = i;
      pick.append(o);
    });
    const tour = tours[cur.t];
    const order = (tour.places || []).map((p, seat) => [p, seat]).filter((x) => x[0] > 0)
      .sort((a, b) => a[0] - b[0]);
    $("places").textContent = order.length
      ? "Finish: " + order.map((x) => ordinal(x[0]) + " " + tour.aliases[x[1]]).join(" \u00b7 ") +
        (tour.stopped_early ? " (stopped early)" : "")
      : "";
  }

  function go(t, h, s) {
    if (!tours.length) return;
    t = Math.max(0, Math.min(tours.length - 1, t));
    if (t !== cur.t || !$("hand").options.length) { cur.t = t; fillHands(); }
    const hands = tours[t].hands || [];
    if (!hands.length) { $("step-text").textContent = "no hands recorded"; return; }
    h = Math.max(0, Math.min(hands.length - 1, h));
    const built = buildHand(t, h);
    s = s < 0 ? built.steps.length - 1 : Math.min(s, built.steps.length - 1);
    cur = { t: t, h: h, s: s };
    $("tournament").value = t;
    $("hand").value = h;
    $("step-pos").textContent = "tournament " + (t + 1) + " \u00b7 hand " + (hands[h].hand + 1) +
      " \u00b7 step " + (s + 1) + "/" + built.steps.length;
    $("step-text").textContent = built.steps[s].text;
    renderTable(built, built.steps[s]);
    renderLists(built);
  }

  function step(delta) {
    const steps = buildHand(cur.t, cur.h).steps;
    const s = cur.s + delta;
    const last = (tours[cur.t].hands || []).length - 1;
    if (s >= steps.length) { if (cur.h < last) go(cur.t, cur.h + 1, 0); }
    else if (s < 0) { if (cur.h > 0) go(cur.t, cur.h - 1, -1); }  // the previous hand's end
    else go(cur.t, cur.h, s);
  }
  const hand = (delta) => go(cur.t, cur.h + delta, 0);

  function init() {
    renderStandings();
    const r = results;
    $("summary").textContent = (r.variant || "?") + " \u00b7 seed " + r.seed + " \u00b7 " +
      r.tournaments_played + " tournaments played" + (r.stopped_early ? " (stopped early)" : "") +
      " \u00b7 holdemjax " + ((r.versions || {}).holdemjax || "?") + ", wasmtime " +
      ((r.versions || {}).wasmtime || "?");
    const pick = $("tournament");
    tours.forEach((t, i) => {
      const o = el("option", null, "Tournament " + ((t.tournament ?? i) + 1) + " \u00b7 " +
                   (t.hands || []).length + " hands");
      o.value = i;
      pick.append(o);
    });
    // After a pick, give the keys back to the page (a focused select eats the arrow keys).
    pick.addEventListener("change", () => { go(Number(pick.value), 0, 0); pick.blur(); });
    const handPick = $("hand");
    handPick.addEventListener("change", () => {
      go(cur.t, Number(handPick.value), 0);
      handPick.blur();
    });
    $("prev").addEventListener("click", () => step(-1));
    $("next").addEventListener("click", () => step(1));
    $("prev-hand").addEventListener("click", () => hand(-1));
    $("next-hand").addEventListener("click", () => hand(1));
    const keys = {
      ArrowLeft: () => step(-1), ArrowRight: () => step(1),
      ArrowUp: () => hand(-1), PageUp: () => hand(-1),
      ArrowDown: () => hand(1), PageDown: () => hand(1),
      Home: () => go(cur.t, cur.h, 0), End: () => go(cur.t, cur.h, -1),
    };
    document.addEventListener("keydown", (ev) => {
      if (ev.altKey || ev.ctrlKey || ev.metaKey) return;
      if (/^(SELECT|INPUT|TEXTAREA)$/.test(ev.target.tagName || "")) return;
      const f = keys[ev.key];
      if (f) { ev.preventDefault(); f(); }
    });
    if (tours.length) go(0, 0, 0);
    else $("step-text").textContent = "no tournaments in this replay";
  }

  // For tests and the curious: the step model and the current position.
  window.holdemViewer = { buildHand: buildHand, go: go, position: () => Object.assign({}, cur) };
  init();
})();
