// The table picture shared by the series viewer and the duplicate service's play page: seats
// around a felt (seat 0 at the bottom, then clockwise), each with its name, stack, cards,
// markers and status, the bets in front of them, the board and the pot. Every text goes through
// textContent: names and chat are hostile input, never parsed as markup.
"use strict";
const HoldemFelt = (function () {
  const SUIT = { c: "\u2663", d: "\u2666", h: "\u2665", s: "\u2660" };

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }

  function avatar(name, animal) {
    // A coloured badge for the name shown beside it: its first two letters, coloured by the
    // slot's avatar (an animal; by the name without one), which its title names. No images,
    // no emoji fonts needed.
    const text = String(name || "?"), key = animal ? String(animal) : text;
    let hash = 0;
    for (const ch of key) hash = (hash * 31 + ch.charCodeAt(0)) % 360;
    const badge = el("span", "avatar", text.slice(0, 2));
    badge.style.background = "hsl(" + hash + ", 45%, 40%)";
    badge.title = animal ? text + " (avatar: " + animal + ")" : text;
    return badge;
  }

  // One action in words: "folds", "checks", "calls 40", "bets 80", "raises to 120" (``you``:
  // "fold", "check", "call 40", "bet 80", "raise to 120"). A raise into no bet on its street
  // (``facing`` false) is a bet; before the flop the blinds are the bet.
  function actionWords(code, to, added, facing, you) {
    const verbs = you ? ["fold", "check", "call", "raise to", "bet"]
      : ["folds", "checks", "calls", "raises to", "bets"];
    if (code === 0 || code === 1) return verbs[code];
    if (code === 2) return verbs[2] + " " + added;
    return verbs[facing ? 3 : 4] + " " + to;
  }

  function card(text) {  // "Ah", "Td", ...; null draws a face-down card
    if (text === null || text === undefined) return el("span", "card back");
    const s = String(text);
    const e = el("span", "card suit-" + s.charAt(1));
    e.dataset.card = s;
    e.append(el("span", "r", s.charAt(0) === "T" ? "10" : s.charAt(0)),
             el("span", "s", SUIT[s.charAt(1)] || s.charAt(1)));
    return e;
  }

  function seatPosition(seat, n, radius) {
    const a = Math.PI / 2 + (2 * Math.PI * seat) / n;
    return [50 + radius * 41 * Math.cos(a), 50 + radius * 38 * Math.sin(a)];
  }

  // view: { seats: [{ name, avatar, stack, cards, status, classes, marks, bet }], board, pot }
  // (stack: its text; cards: card texts, null for a face-down card; marks: any of "btn", "sb",
  // "bb"; classes: any of "actor", "winner", "folded", "out", "benched", "hero").
  function draw(felt, boardEl, potEl, view) {
    felt.querySelectorAll(".seat, .bet").forEach((e) => e.remove());
    const n = view.seats.length;
    view.seats.forEach((s, seat) => {
      const box = el("div", "seat");
      box.dataset.seat = seat;
      for (const c of s.classes || []) box.classList.add(c);
      const [x, y] = seatPosition(seat, n, 1);
      box.style.left = x + "%"; box.style.top = y + "%";
      const name = el("div", "name");
      const alias = el("span", "alias", s.name);
      alias.title = String(s.name);  // the whole name, where a long one is cut
      name.append(avatar(s.name, s.avatar), alias);
      const cards = el("div", "cards");
      for (const c of s.cards || []) cards.append(card(c));
      const marks = el("div", "marker");
      const words = { btn: "D", sb: "SB", bb: "BB" };
      for (const m of s.marks || []) marks.append(el("span", m, words[m]));
      box.append(marks, name, el("div", "stack", s.stack), cards, el("div", "status", s.status || ""));
      felt.append(box);
      if (s.bet > 0) {
        const [bx, by] = seatPosition(seat, n, 0.6);
        const bet = el("div", "bet", s.bet);
        bet.dataset.seat = seat;
        bet.style.left = bx + "%"; bet.style.top = by + "%";
        felt.append(bet);
      }
    });
    boardEl.replaceChildren();
    for (let i = 0; i < 5; i++) {
      boardEl.append(i < view.board.length ? card(view.board[i]) : el("span", "slot"));
    }
    potEl.textContent = view.pot > 0 ? "Pot " + view.pot : "";
  }

  return { SUIT: SUIT, el: el, avatar: avatar, actionWords: actionWords, card: card,
           seatPosition: seatPosition, draw: draw };
})();
