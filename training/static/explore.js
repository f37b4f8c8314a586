// The pre-flop explorer's page: draws the grid document of /api/grid (holdemjax.training
// .explore_page.grid_document), and asks for another when the stage or the action changes.
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const KINDS = ["fold", "call", "raise", "allin"];
  let doc = null;

  function pct(x) { return (100 * x).toFixed(1) + "%"; }
  function bb(x) { return (Math.round(x * 100) / 100) + " BB"; }

  // fold, call, raise (every raise size), all-in shares of a cell
  function kinds(shares) {
    const n = shares.length;
    let raise = 0;
    for (let i = 2; i < n - 1; i++) raise += shares[i];
    return [shares[0], shares[1], raise, shares[n - 1]];
  }

  function words(action, raiseTo) {
    if (action === "fold" || action === "call" || action === "check") return action + "s";
    if (action === "all_in") return "goes all-in (" + bb(raiseTo) + ")";
    return "raises to " + bb(raiseTo) + " (" + action.replace(/_/g, " ") + ")";
  }

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function miniGrid(range) {  // a 13 x 13 heat map of an earlier actor's range
    const t = el("table", "mini");
    range.forEach((row) => {
      const tr = el("tr");
      row.forEach((w) => {
        const td = el("td");
        td.style.background = "rgba(229, 57, 53, " + w.toFixed(3) + ")";
        td.title = pct(w);
        tr.appendChild(td);
      });
      t.appendChild(tr);
    });
    return t;
  }

  function ask(actions, position) {
    const q = new URLSearchParams({stack: $("stack").value, level: $("level").value,
                                   players: $("players").value, actions: actions.join(",")});
    if (position) q.set("position", position);
    $("status").textContent = "computing...";
    fetch("/api/grid?" + q).then((r) => r.json().then((body) => [r.ok, body])).then(([ok, body]) => {
      if (!ok) { $("status").textContent = body.detail; return; }
      $("status").textContent = "";
      history.replaceState(null, "", "/?" + q);
      draw(body);
    });
  }

  function showCell(cell, td) {
    document.querySelectorAll("#grid td.hover").forEach((x) => x.classList.remove("hover"));
    td.classList.add("hover");
    const box = $("cell-info");
    box.textContent = "";
    box.appendChild(el("div", "hand", cell.label));
    const t = el("table", "shares");
    const n = cell.shares.length;
    const ks = kinds(cell.shares);
    const rows = [["fold", ks[0]], [doc.legal.check !== undefined ? "check" : "call", ks[1]],
                  ["raise", ks[2]], ["all-in", ks[3]]];
    rows.forEach(([name, x]) => {
      const tr = el("tr");
      tr.dataset.kind = name;
      tr.appendChild(el("td", "", name));
      tr.appendChild(el("td", "share", pct(x)));
      t.appendChild(tr);
    });
    for (let i = 2; i < n - 1; i++) {
      const name = doc.menu[i];
      if (doc.legal[name] === undefined || cell.shares[i] === 0) continue;
      const tr = el("tr", "size");
      tr.appendChild(el("td", "", "  to " + bb(doc.legal[name])));
      tr.appendChild(el("td", "", pct(cell.shares[i])));
      t.appendChild(tr);
    }
    box.appendChild(t);
    if (cell.reach < 1) box.appendChild(el("div", "reach", doc.position + " holds it " +
                                           pct(cell.reach) + " of the time here"));
  }

  function draw(d) {
    doc = d;
    $("stack").value = d.stage.stack; $("level").value = d.stage.level;
    $("players").value = d.stage.players;
    const first = $("first-in");
    first.textContent = "";
    d.positions.slice(0, -1).forEach((p) => {
      const b = el("button", "", p);
      b.type = "button";
      b.onclick = () => ask([], p);
      first.appendChild(b);
    });
    const line = $("line");
    line.textContent = "";
    d.steps.forEach((s) => {
      const li = el("li");
      li.appendChild(el("div", "what", s.position + " " + words(s.action, s.raise_to_bb)));
      li.appendChild(miniGrid(s.range));
      line.appendChild(li);
    });
    if (!d.steps.length) line.appendChild(el("li", "", "blinds posted"));
    $("deciding").textContent = d.position + " to act, pot " + bb(d.pot_bb) + ":";
    const legal = $("legal");
    legal.textContent = "";
    Object.keys(d.legal).forEach((name) => {
      const b = el("button", "", name === "fold" || name === "call" || name === "check"
                   ? name : name.replace(/_/g, " ") + " (" + bb(d.legal[name]) + ")");
      b.type = "button";
      b.dataset.action = name;
      b.disabled = d.actions.length >= d.max_depth;
      b.onclick = () => ask(d.actions.concat([name]));
      legal.appendChild(b);
    });
    $("back").disabled = !d.actions.length;
    $("back").onclick = () => ask(d.actions.slice(0, -1));
    const grid = $("grid");
    grid.textContent = "";
    d.cells.forEach((row) => {
      const tr = el("tr");
      row.forEach((cell) => {
        const td = el("td");
        td.dataset.hand = cell.label;
        const bars = el("div", "bars");
        kinds(cell.shares).forEach((x, k) => {
          const bar = el("div", KINDS[k]);
          bar.style.height = (100 * x) + "%";
          bars.appendChild(bar);
        });
        td.appendChild(bars);
        td.appendChild(el("span", "label", cell.label));
        if (cell.reach < 0.005) td.classList.add("dim");
        td.onmouseenter = () => showCell(cell, td);
        tr.appendChild(td);
      });
      grid.appendChild(tr);
    });
    const legend = $("legend");
    legend.textContent = "";
    ["fold", "call / check", "raise", "all-in"].forEach((name, k) => {
      legend.appendChild(el("span", "swatch " + KINDS[k]));
      legend.appendChild(document.createTextNode(name));
    });
    $("how").textContent = (d.exact
      ? "exact: the policy's own probabilities at each state"
      : "sampled: " + d.samples + " draws of the policy's action per combo") +
      "; each cell averages its suit combos; the small grids are each earlier actor's " +
      "range after its action (its probability of every action it took so far).";
    $("timing").textContent = "one program call, " + d.states.toLocaleString() +
      " states: " + (1000 * d.seconds).toFixed(0) + " ms" +
      (d.compiled ? " (compiling included: the first call)" : "");
  }

  ["stack", "level", "players"].forEach((id) => {
    $(id) && $(id).addEventListener("change", () => ask(doc.actions));
  });
  const data = $("page-data");
  if (data) draw(JSON.parse(data.textContent));
})();
