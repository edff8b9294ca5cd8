// sidecar console: plain JavaScript over the daemon's /api/ (no build
// step, no dependency). Every value is put into the page as text
// (textContent), never as HTML.
"use strict";

const main = document.getElementById("main");
const errors = document.getElementById("errors");
const login = document.getElementById("login");

// Errors the page meets are shown, not only logged: the headless test
// reads #errors and the console log both.
function showError(msg) {
  const p = document.createElement("div");
  p.textContent = String(msg);
  errors.appendChild(p);
}
window.addEventListener("error", (e) => showError("script error: " + e.message));
window.addEventListener("unhandledrejection", (e) => showError("error: " + (e.reason && e.reason.message || e.reason)));

function el(tag, attrs, ...kids) {
  const n = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") n.className = v;
    else if (k.startsWith("on")) n.addEventListener(k.slice(2), v);
    else n.setAttribute(k, v);
  }
  for (const k of kids.flat()) {
    if (k === undefined || k === null || k === false) continue;
    n.appendChild(typeof k === "string" || typeof k === "number" ? document.createTextNode(String(k)) : k);
  }
  return n;
}

// The token: from the tab's sessionStorage, or #…&token= once (then
// removed from the address bar).
function token() { return sessionStorage.getItem("sidecar-token") || ""; }

class APIError extends Error {
  constructor(status, msg) { super(msg); this.status = status; }
}

async function request(path, opts) {
  const headers = Object.assign({}, (opts && opts.headers) || {});
  if (token()) headers["Authorization"] = "Bearer " + token();
  const res = await fetch(path, Object.assign({}, opts, { headers }));
  if (res.status === 401) {
    login.hidden = false;
    throw new APIError(401, "the API wants a token (api.token): enter it above");
  }
  if (!res.ok) {
    let msg = res.status + " " + res.statusText;
    try { const j = await res.json(); if (j.error) msg = j.error; } catch (_) { /* not JSON */ }
    throw new APIError(res.status, msg);
  }
  return res;
}

async function getJSON(path) { return (await request(path)).json(); }

// JSON lines; a line {"error": …} ends a stream that failed midway.
async function getLines(path, opts) {
  const text = await (await request(path, opts)).text();
  const out = [];
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    const v = JSON.parse(line);
    if (v && typeof v.error === "string" && Object.keys(v).length === 1) throw new APIError(500, v.error);
    out.push(v);
  }
  return out;
}

function qs(params) {
  const u = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (Array.isArray(v)) v.forEach((x) => x && u.append(k, x));
    else if (v !== undefined && v !== null && v !== "") u.set(k, v);
  }
  return u.toString();
}

function route() {
  const h = location.hash.replace(/^#/, "");
  const [view, q] = h.split("?");
  const params = Object.fromEntries(new URLSearchParams(q || ""));
  return { view: view || "tables", params };
}

function go(view, params) { location.hash = view + (params ? "?" + qs(params) : ""); }

function fmtTime(t) { return t ? t.replace("T", " ").replace(/\.\d+/, "").replace("Z", " UTC") : "–"; }

function cell(v) {
  if (v === null || v === undefined) return el("td", { class: "null" }, "NULL");
  return el("td", { class: "mono" }, v);
}

function form(fields, submit, label) {
  const f = el("form", { class: "bar" });
  for (const [name, title, value, placeholder] of fields) {
    f.appendChild(el("label", {}, title, el("input", { name, value: value || "", placeholder: placeholder || "" })));
  }
  f.appendChild(el("button", {}, label));
  f.addEventListener("submit", (e) => {
    e.preventDefault();
    submit(Object.fromEntries(new FormData(f)));
  });
  return f;
}

// --- views ---

async function viewTables() {
  const st = await getJSON("/api/status");
  document.getElementById("state").textContent = "phase " + st.phase + (st.connected ? ", connected" : "");
  const lag = st.phase === "stopped" ? "not running" : st.lag_bytes + " bytes, " + Number(st.lag_seconds || 0).toFixed(1) + " s";
  const kv = [["phase", st.phase], ["lag", lag], ["durable LSN", st.durable_lsn], ["received LSN", st.received_lsn === "0/0" ? "nothing yet" : st.received_lsn],
    ["server WAL", st.server_lsn], ["slot", st.slot && st.slot.name + (st.slot.wal_status ? " (wal_status " + st.slot.wal_status + ")" : "")],
    ["last commit", fmtTime(st.last_commit_time)], ["commits applied", st.commits_applied], ["last error", st.last_error]];
  const out = [el("h2", {}, "Daemon"),
    el("table", { id: "daemon" }, kv.filter(([, v]) => v !== undefined && v !== "").map(([k, v]) => el("tr", {}, el("th", {}, k), el("td", {}, v))))];
  out.push(el("h2", {}, "Tables"));
  out.push(el("table", { id: "tables" },
    el("tr", {}, ["table", "state", "rows", "copied at", ""].map((h) => el("th", {}, h))),
    (st.tables || []).map((t) => el("tr", {},
      el("td", { class: "mono" }, t.name), el("td", {}, t.state), el("td", { class: "num" }, t.rows), el("td", { class: "mono" }, t.copied_at || "–"),
      el("td", {}, el("a", { href: "#log?" + qs({ table: t.name }) }, "versions"), " · ", el("a", { href: "#read?" + qs({ table: t.name }) }, "read"))))));
  if (st.copy && st.copy.length) {
    out.push(el("h2", {}, "Copy in progress"));
    out.push(el("table", {}, el("tr", {}, ["table", "rows", "rows/s", "ranges", "eta"].map((h) => el("th", {}, h))),
      st.copy.map((c) => el("tr", {}, el("td", { class: "mono" }, c.table), el("td", { class: "num" }, c.rows), el("td", { class: "num" }, Math.round(c.rows_per_second || 0)),
        el("td", {}, (c.ranges_done || 0) + "/" + (c.ranges || 0)), el("td", {}, c.done ? "done" : c.eta_seconds ? Math.round(c.eta_seconds) + " s" : "–")))));
  }
  return out;
}

async function viewLog(p) {
  const n = p.n || "200";
  const [entries, tags] = await Promise.all([getLines("/api/log?" + qs({ table: p.table, n })), getJSON("/api/tags")]);
  const f = form([["table", "table", p.table, "schema.name (all)"], ["n", "at most", n]], (v) => go("log", v), "Filter");
  const rows = entries.map((e, i) => {
    const prev = entries[i + 1];
    let what = (e.tables || []).map((t) => t.table + " " + t.rows + (t.truncated ? " (truncated)" : "")).join(", ");
    let kind = "commit";
    if (e.initial_copy) { kind = "initial copy"; }
    if (e.resync) { kind = "resync copy"; }
    const held = (e.held_for_resync || []).map((t) => t + " held for resync");
    const special = e.initial_copy || e.resync;
    return el("tr", { class: special ? "special" : "" },
      el("td", { class: "mono" }, e.lsn), el("td", {}, special ? "–" : fmtTime(e.commit_time)), el("td", {}, special ? "–" : e.xid),
      el("td", {}, kind), el("td", {}, what, held.length ? el("div", { class: "muted" }, held.join(", ")) : null),
      el("td", {}, (e.tags || []).map((t) => el("span", { class: "tag" }, t))),
      el("td", {}, prev && !p.table ? el("a", { href: "#diff?" + qs({ from: prev.lsn, to: e.lsn }) }, "diff") : null));
  });
  return [f,
    el("table", { id: "log" }, el("tr", {}, ["LSN", "commit time", "xid", "kind", "changes", "tags", ""].map((h) => el("th", {}, h))), rows),
    el("p", { class: "muted" }, entries.length + " versions shown, newest first. Versions listing a table as held for resync have no per-commit history of it: the resync copy above them replaced it."),
    el("h2", {}, "Tags"),
    el("table", { id: "tags" }, el("tr", {}, ["tag", "LSN", "created"].map((h) => el("th", {}, h))),
      tags.map((t) => el("tr", {}, el("td", {}, el("span", { class: "tag" }, t.name)), el("td", { class: "mono" }, t.lsn), el("td", {}, fmtTime(t.created)))))];
}

// renderDiff lays out diff events: a table per diffed table, a row per
// added or removed row, two per changed row (before, after), the changed
// columns highlighted.
function renderDiff(events) {
  const out = [];
  let tbl = null, cols = [];
  for (const e of events) {
    if (e.type === "table") {
      cols = (e.columns || []).map((c) => c.name);
      out.push(el("h2", {}, e.table));
      if (e.schema_change) {
        const sc = e.schema_change;
        out.push(el("p", { class: "muted" }, "schema: columns added " + (sc.added || []).join(", ") + "; dropped " + (sc.dropped || []).join(", ") + (sc.retyped ? "; retyped " + sc.retyped.join(", ") : "")));
      }
      tbl = el("table", { class: "diff", "data-table": e.table }, el("tr", {}, el("th", {}, ""), cols.map((c) => el("th", {}, c))));
      out.push(tbl);
    } else if (e.type === "row" && tbl) {
      const changed = new Set(e.changed || []);
      const line = (mark, cls, row, hi) => el("tr", { class: cls, "data-op": e.op },
        el("td", { class: "mono" }, mark), cols.map((c) => { const td = cell(row ? row[c] : null); if (hi && changed.has(c)) td.classList.add("x"); return td; }));
      if (e.op === "added") tbl.appendChild(line("+", "added", e.to, false));
      else if (e.op === "removed") tbl.appendChild(line("-", "removed", e.from, false));
      else { tbl.appendChild(line("<", "changed", e.from, true)); tbl.appendChild(line(">", "changed", e.to, true)); }
    }
  }
  if (!events.some((e) => e.type === "row")) return [el("p", { id: "nodiff" }, "No differences.")];
  return out;
}

async function viewDiff(p) {
  const f = form([["from", "from", p.from, "ref: tag, LSN, HEAD~1, @time"], ["to", "to", p.to || "HEAD", "ref"], ["table", "table", p.table, "schema.name (all)"]],
    (v) => go("diff", v), "Diff");
  if (!p.from) return [f, el("p", { class: "muted" }, "Pick two refs, or a version's \"diff\" link on the Versions page.")];
  const base = { from: p.from, to: p.to || "HEAD", table: p.table ? [p.table] : [] };
  const [stat, events] = await Promise.all([getLines("/api/diff?" + qs(Object.assign({ stat: "true" }, base))), getLines("/api/diff?" + qs(Object.assign({ limit: "1000" }, base)))]);
  const statTable = el("table", { id: "stat" }, el("tr", {}, ["table", "added", "removed", "changed"].map((h) => el("th", {}, h))),
    stat.filter((e) => e.type === "stat").map((s) => el("tr", {}, el("td", { class: "mono" }, s.table), el("td", { class: "num" }, s.rows_added || 0),
      el("td", { class: "num" }, s.rows_removed || 0), el("td", { class: "num" }, s.rows_changed || 0))));
  const patch = el("pre", { id: "patch", hidden: true });
  const copy = el("button", { type: "button", hidden: true, onclick: () => navigator.clipboard && navigator.clipboard.writeText(patch.textContent) }, "Copy");
  const show = el("button", { type: "button", onclick: async () => {
    patch.textContent = await (await request("/api/diff?" + qs(Object.assign({ format: "sql" }, base)))).text();
    patch.hidden = false; copy.hidden = false;
  } }, "SQL patch");
  const rows = events.filter((e) => e.type === "row").length;
  return [f, el("h2", {}, "--stat"), statTable,
    el("p", {}, show, " ", copy, el("span", { class: "muted" }, " the patch turns " + base.from + " into " + base.to + "; for foreign-key order use sidecar diff --format sql")), patch,
    rows >= 1000 ? el("p", { class: "muted" }, "first 1000 rows shown") : null,
    renderDiff(events)];
}

async function viewVerify() {
  const st = await getJSON("/api/status");
  const v = st.verify;
  const last = v ? el("table", { id: "lastverify" },
    [["result", el("span", { class: v.result === "ok" ? "ok" : "bad" }, v.result)], ["at", fmtTime(v.at)], ["LSN", v.lsn], ["every", v.interval], ["error", v.error]]
      .filter(([, x]) => x).map(([k, x]) => el("tr", {}, el("th", {}, k), el("td", {}, x))))
    : el("p", { class: "muted", id: "lastverify" }, "No verify has run since the daemon started (verify.interval off or not yet due).");
  const report = el("div", { id: "report" });
  const run = el("button", { type: "button", onclick: async () => {
    run.disabled = true; report.textContent = "verifying…";
    try {
      const r = await getJSONPost("/api/verify", "{}");
      report.textContent = "";
      report.appendChild(el("pre", {}, JSON.stringify(r, null, 2)));
    } finally { run.disabled = false; }
  } }, "Verify now");
  return [el("h2", {}, "Last verify"), last, el("h2", {}, "Run"), el("p", {}, run, el("span", { class: "muted" }, " compares every table with PostgreSQL at one pinned LSN")), report];
}

async function getJSONPost(path, body) {
  return (await request(path, { method: "POST", headers: { "Content-Type": "application/json" }, body })).json();
}

// Read: a table as of a version (read-only by construction: the scan API
// has no way to write). AS OF takes any ref.
async function viewRead(p) {
  const f = form([["table", "table", p.table, "schema.name"], ["as_of", "AS OF", p.as_of, "HEAD, tag, LSN, @2026-01-01T00:00:00Z"],
    ["from", "from key", p.from, ""], ["limit", "limit", p.limit || "100"]], (v) => go("read", v), "Read");
  if (!p.table) return [f, el("p", { class: "muted" }, "SELECT * FROM a table AS OF a version, in key order.")];
  const lines = await getLines("/api/scan?" + qs({ table: p.table, as_of: p.as_of, from: p.from, limit: p.limit || "100" }));
  const hdr = lines[0] || { columns: [] };
  const cols = (hdr.columns || []).map((c) => c.name);
  return [f, el("p", { class: "muted" }, "SELECT * FROM " + hdr.table + " AS OF " + (hdr.ref || "HEAD") + " (version " + hdr.lsn + ")"),
    el("table", { id: "rows" }, el("tr", {}, cols.map((c) => el("th", {}, c))), lines.slice(1).map((r) => el("tr", {}, cols.map((c) => cell(r[c])))))];
}

// SQL: a query text run on the daemon's own SQL front end (POST /api/sql:
// the SQL port's planner, read-only there — writes and DDL are refused
// with 25006), at HEAD or AS OF a version; the rows as PostgreSQL's text.
// The daemon bounds each run (statement timeout, a row cap, a byte cap).
async function viewSQL(p) {
  const text = el("textarea", { name: "q", rows: "6", cols: "90", spellcheck: "false", placeholder: "SELECT … FROM schema.table … (read-only)" });
  text.value = p.q || "";
  const f = el("form", { class: "bar", id: "sqlform" },
    el("label", { class: "wide" }, "query (Ctrl+Enter runs)", text),
    el("label", {}, "AS OF", el("input", { name: "as_of", value: p.as_of || "", placeholder: "HEAD, HEAD~1, tag, LSN, @2026-01-01T00:00:00Z" })),
    el("label", {}, "at most rows", el("input", { name: "max_rows", value: p.max_rows || "1000", size: "6" })),
    el("button", { id: "run" }, "Run"));
  f.addEventListener("submit", (e) => {
    e.preventDefault();
    const v = Object.fromEntries(new FormData(f));
    const next = "#sql?" + qs(v);
    if (location.hash === next) render(); // the same query again: run it again
    else go("sql", v);
  });
  text.addEventListener("keydown", (e) => { if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) { e.preventDefault(); f.requestSubmit(); } });
  if (!p.q) {
    return [f, el("p", { class: "muted" }, "Runs on the daemon's SQL front end, as psql on the SQL port would: PostgreSQL's answer or an error with its SQLSTATE. " +
      "AS OF reads every table at that version (a table's own AS OF 'ref' in the text wins). Read-only; bounded by a statement timeout and a row cap.")];
  }
  const res = await getJSONPost("/api/sql", JSON.stringify({ query: p.q, as_of: p.as_of || "", max_rows: Number(p.max_rows) || 0 }));
  return [f, renderSQL(res)];
}

// renderSQL lays out an /api/sql answer: a summary, a table per result
// set (or its command tag), then the error with its SQLSTATE.
function renderSQL(res) {
  const out = [];
  const rows = res.results.reduce((n, r) => n + (r.rows ? r.rows.length : 0), 0);
  out.push(el("p", { id: "sqlsummary", class: "muted" }, (res.as_of ? "AS OF " + res.as_of : "at HEAD") + ": " + rows + (rows === 1 ? " row" : " rows") +
    " in " + (res.elapsed_seconds * 1000).toFixed(0) + " ms" + (res.truncated ? "; stopped at the cap (" + res.max_rows + " rows or 16 MiB): the rest was not read" : "")));
  res.results.forEach((r, i) => {
    if (r.columns) {
      out.push(el("table", { class: "sqlrows", "data-result": i },
        el("tr", {}, r.columns.map((c) => el("th", { title: "type oid " + c.type_oid }, c.name))),
        (r.rows || []).map((row) => el("tr", {}, row.map((v) => cell(v))))));
    }
    if (r.command) out.push(el("p", { class: "muted command" }, r.command));
  });
  if (res.error) {
    const e = res.error;
    out.push(el("div", { id: "sqlerror", class: "bad" },
      el("div", {}, e.severity + " " + e.code + ": " + e.message + (e.position ? " (at character " + e.position + ")" : "")),
      e.detail ? el("div", {}, "DETAIL: " + e.detail) : null,
      e.hint ? el("div", {}, "HINT: " + e.hint) : null));
  }
  return out;
}

const views = { tables: viewTables, log: viewLog, diff: viewDiff, verify: viewVerify, read: viewRead, sql: viewSQL };

async function render() {
  const { view, params } = route();
  if (params.token) { // a link carrying the token: keep it, drop it from the address bar
    sessionStorage.setItem("sidecar-token", params.token);
    delete params.token;
    history.replaceState(null, "", "#" + view + (Object.keys(params).length ? "?" + qs(params) : ""));
  }
  for (const a of document.querySelectorAll("nav a")) a.classList.toggle("on", a.dataset.view === view);
  const fn = views[view] || viewTables;
  main.textContent = "";
  main.appendChild(el("p", { class: "muted" }, "loading…"));
  try {
    const parts = await fn(params);
    main.textContent = "";
    for (const n of parts.flat()) if (n) main.appendChild(n);
    main.dataset.ready = view;
  } catch (e) {
    main.textContent = "";
    main.appendChild(el("p", { class: "bad", id: "failed" }, e.message));
    main.dataset.ready = view;
    if (!(e instanceof APIError)) throw e;
  }
}

login.addEventListener("submit", (e) => {
  e.preventDefault();
  sessionStorage.setItem("sidecar-token", new FormData(login).get("token"));
  login.hidden = true;
  render();
});
window.addEventListener("hashchange", render);
render();
