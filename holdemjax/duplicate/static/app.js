// Shared by the service's pages: the JSON API helper, the create, join and operator forms.
"use strict";
const pageData = (() => {
  const el = document.getElementById("page-data");
  return el ? JSON.parse(el.textContent) : {};
})();

async function api(method, path, body, headers) {
  const opts = { method, headers: Object.assign({ "Content-Type": "application/json" }, headers || {}) };
  if (body !== undefined) opts.body = body instanceof Blob ? body : JSON.stringify(body);
  const res = await fetch(path, opts);
  const data = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(data.detail || res.statusText);
  return data;
}

function text(id, value) { const el = document.getElementById(id); if (el) el.textContent = value; }

// The share link as a link: element ``id`` (an <a>) goes to ``url`` and shows it.
function shareLink(id, url) {
  const a = document.getElementById(id);
  a.href = url; a.textContent = url;
}

const create = document.getElementById("create");
if (create) create.addEventListener("submit", async (e) => {
  e.preventDefault();
  const f = new FormData(create), spec = {};
  for (const k of ["seats", "hands", "participants"]) if (f.get(k)) spec[k] = parseInt(f.get(k), 10);
  const bots = (f.get("bots") || "").split(",").map((s) => s.trim()).filter(Boolean);
  if (bots.length === 1 && spec.seats > 2) spec.bots = Array(spec.seats - 1).fill(bots[0]);
  else if (bots.length) spec.bots = bots;
  if (f.get("deadline")) spec.deadline = f.get("deadline");
  if (f.get("simultaneous")) {
    spec.simultaneous = true;
    if (f.get("clock")) spec.clock = parseInt(f.get("clock"), 10);
  }
  localStorage.setItem("dup:operator", f.get("operator"));
  try {
    const m = await api("POST", "/api/matches", spec, { "X-Operator": f.get("operator") });
    const out = document.getElementById("created");
    out.innerHTML = "";
    const a = document.createElement("a");
    a.href = "/m/" + m.match; a.textContent = "match " + m.match;
    const share = document.createElement("a");
    share.id = "share-link";
    out.append(a, " · commitment " + m.commitment + " · share link: ", share);
    shareLink("share-link", location.origin + m.share_url);
    // the match list: the new match in it, instead of "none"
    const item = document.createElement("li"), link = document.createElement("a");
    link.href = "/m/" + m.match; link.textContent = m.match;
    item.append(link, " " + m.state);
    document.getElementById("no-matches")?.remove();
    document.getElementById("matches").append(item);
  } catch (err) { text("created", err.message); }
});

const join = document.getElementById("join");
if (join) join.addEventListener("submit", async (e) => {
  e.preventDefault();
  const name = new FormData(join).get("name");
  try {
    const r = await api("POST", `/api/matches/${pageData.match}/join`,
                        { token: pageData.token, name, browser: true });
    localStorage.setItem(`dup:${r.match}:${r.name}`, r.key);
    location.href = r.play_url + "#key=" + encodeURIComponent(r.key);
  } catch (err) { text("join-out", err.message); }
});

const ops = document.getElementById("operator");
if (ops) {
  const token = document.getElementById("op-token");
  token.value = localStorage.getItem("dup:operator") || "";
  // the share link, shown to the operator every time (the token is kept in this browser)
  const showShare = async () => {
    if (!token.value) return;
    try {
      const r = await api("GET", `/api/matches/${pageData.match}/share`, undefined, { "X-Operator": token.value });
      localStorage.setItem("dup:operator", token.value);
      shareLink("share-link", location.origin + r.url);
    } catch (err) { text("share-link", err.message); }
  };
  token.addEventListener("change", showShare);
  showShare();
  ops.querySelectorAll("button[data-op]").forEach((b) => b.addEventListener("click", async () => {
    const what = b.dataset.op, h = { "X-Operator": token.value }, m = pageData.match;
    try {
      let r;
      if (what === "entrants") {
        const file = document.getElementById("op-wasm").files[0];
        const name = encodeURIComponent(document.getElementById("op-name").value);
        const bot = encodeURIComponent(document.getElementById("op-bot").value);
        // a .wasm module as it is; another file by its suffix (a checkpoint: .msgpack), the
        // server refusing a kind it does not know; "sampled" plays a checkpoint sampled
        const dot = file ? file.name.lastIndexOf(".") : -1;
        const suffix = dot >= 0 ? file.name.slice(dot).toLowerCase() : "";
        const kind = file && suffix !== ".wasm" ? `&suffix=${encodeURIComponent(suffix)}` : "";
        const sample = document.getElementById("op-sample").checked ? "&sample=true" : "";
        r = await api("POST", `/api/matches/${m}/entrants?name=${name}` +
                      (file ? kind + sample : `&bot=${bot}`), file ? file : undefined, h);
      } else {
        r = await api("POST", `/api/matches/${m}/${what}`, {}, h);
      }
      text("op-out", r.url ? location.origin + r.url : JSON.stringify(r.status || r.state || r));
      if (what !== "invites") setTimeout(() => location.reload(), 400);
    } catch (err) { text("op-out", err.message); }
  }));
}

// While the reference lines are being played, the status page shows their progress.
if (pageData.preparing) setTimeout(() => location.reload(), 1500);
