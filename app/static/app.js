// The Gangplank page: no framework, no other origin. Every server string goes through
// textContent; the SVG is parsed as XML (never as HTML) before it is shown.
"use strict";

const $ = (id) => document.getElementById(id);
const SVG_NS = "http://www.w3.org/2000/svg";

function setStatus(text) {
  $("status").textContent = text;
}

function contentType(text) {
  const first = text.trimStart().charAt(0);
  return first === "{" || first === "[" ? "application/json" : "application/yaml";
}

function cell(row, text, cls) {
  const td = document.createElement("td");
  td.textContent = text == null ? "" : String(text);
  if (cls) td.className = cls;
  row.appendChild(td);
}

function fill(tbody, rows) {
  tbody.replaceChildren();
  for (const r of rows) {
    const tr = document.createElement("tr");
    tr.className = r.cls || "";
    for (const c of r.cells) cell(tr, c);
    tbody.appendChild(tr);
  }
}

function showProblem(status, body) {
  const box = $("error");
  box.replaceChildren();
  const h = document.createElement("h2");
  if (body && typeof body === "object") {
    h.textContent = `${body.status || status} ${body.title || "Error"}`;
    box.appendChild(h);
    const p = document.createElement("p");
    p.textContent = body.detail || "";
    box.appendChild(p);
    const errors = Array.isArray(body.errors) ? body.errors : [];
    if (errors.length) {
      const ul = document.createElement("ul");
      for (const e of errors) {
        const li = document.createElement("li");
        const code = document.createElement("code");
        code.textContent = e.pointer === "" ? "(whole body)" : e.pointer;
        li.appendChild(code);
        let text = ` ${e.detail || ""}`;
        if (e.object) text += ` (${[e.object.kind, e.object.namespace, e.object.name].filter(Boolean).join(" ")})`;
        li.appendChild(document.createTextNode(text));
        ul.appendChild(li);
      }
      box.appendChild(ul);
    }
  } else {
    h.textContent = `Error ${status}`;
    box.appendChild(h);
    const pre = document.createElement("pre");
    pre.textContent = String(body || "");
    box.appendChild(pre);
  }
  box.hidden = false;
  $("result").hidden = true;
}

function showPicture(svgText) {
  const doc = new DOMParser().parseFromString(svgText, "image/svg+xml");
  const root = doc.documentElement;
  if (root.namespaceURI !== SVG_NS || doc.getElementsByTagName("parsererror").length) {
    throw new Error("the server sent a picture that does not parse");
  }
  $("picture").replaceChildren(document.importNode(root, true));
}

function showDecision(d) {
  const jobs = new Map(d.jobs.map((j) => [j.job, j]));
  const why = (job) => {
    const j = jobs.get(job);
    return j ? `${j.state}${j.hyperNode ? " in " + j.hyperNode : ""}: ${j.message}` : "";
  };
  const gpus = (groups) => (groups && groups.length ? ` (GPU ${groups.join(", ")})` : "");
  const rows = [];
  for (const b of d.bindings) rows.push({ cls: "bind", cells: ["bind", b.pod, b.node + gpus(b.gpuGroups), b.job, why(b.job)] });
  for (const n of d.nominations) {
    rows.push({ cls: "nominate", cells: ["nominate", n.pod, n.node + gpus(n.gpuGroups), n.job, why(n.job)] });
  }
  for (const e of d.evictions) {
    const what = e.moveTo ? "move" : "evict";
    const node = e.moveTo ? `${e.node} → ${e.moveTo}${gpus(e.moveToGpuGroups)}` : e.node;
    rows.push({ cls: "evict", cells: [what, e.pod, node, e.job, `${e.action} for ${e.preemptor}: ${e.reason}`] });
  }
  fill($("decision").tBodies[0], rows);
  fill($("jobs").tBodies[0], d.jobs.map((j) => ({ cls: j.state.toLowerCase(), cells: [j.job, j.state, j.hyperNode || "", j.message] })));
  $("summary").textContent =
    `${d.bindings.length} to bind, ${d.nominations.length} to nominate, ${d.evictions.length} to evict` +
    (d.truncated ? " (cut short by the deadline)" : "");
  showWarnings(d.warnings);
}

function showWarnings(list) {
  const w = $("warnings");
  w.replaceChildren();
  for (const text of list || []) {
    const p = document.createElement("p");
    p.className = "warning";
    p.textContent = text;
    w.appendChild(p);
  }
}

// A request with "variants": the pictures side by side, and what changes against the first.
function showCompare(c) {
  const base = c.variants[0].name;
  const place = (p) => (p ? `${p.how} ${p.node}` : "-");
  const rows = [];
  const jobs = [];
  for (const d of c.diffs) {
    for (const p of d.placements) {
      rows.push({ cls: p.to ? p.to.how : "evict", cells: [d.variant, p.pod, `${place(p.from)} → ${place(p.to)}`, p.job, `placed otherwise than in ${base}`] });
    }
    for (const e of d.evictionsOnlyInVariant) {
      rows.push({ cls: "evict", cells: [d.variant, e.pod, e.node, e.job, `evicted for ${e.preemptor}, not in ${base}`] });
    }
    for (const e of d.evictionsOnlyInBase) {
      rows.push({ cls: "bind", cells: [d.variant, e.pod, e.node, e.job, `evicted in ${base}, not here`] });
    }
    for (const j of d.jobs) jobs.push({ cls: j.to.toLowerCase(), cells: [j.job, `${j.from || "-"} → ${j.to}`, d.variant, `against ${base}`] });
  }
  fill($("decision").tBodies[0], rows);
  fill($("jobs").tBodies[0], jobs);
  $("summary").textContent = c.variants
    .map((v) => `${v.name}: ${v.summary.bound} bound, ${v.summary.nominated} nominated, ${v.summary.podsEvicted} evicted, ${v.summary.gangsBroken} gangs broken`)
    .join(" | ");
  showWarnings(c.warnings);
}

async function decide() {
  const text = $("snapshot").value;
  if (!text.trim()) {
    showProblem(0, { title: "Nothing to decide", detail: "paste a request, upload a file or load the example", errors: [] });
    return;
  }
  const headers = { "Content-Type": contentType(text), Accept: "application/json" };
  const token = $("token").value.trim();
  if (token) headers.Authorization = `Bearer ${token}`;
  setStatus("deciding…");
  $("decide").disabled = true;
  try {
    const r = await fetch("/v1/render?format=json", { method: "POST", headers, body: text });
    const type = r.headers.get("content-type") || "";
    const body = type.includes("json") ? await r.json() : await r.text();
    if (!r.ok) {
      showProblem(r.status, body);
      setStatus("");
      return;
    }
    showPicture(body.svg);
    if (body.compare) showCompare(body.compare);
    else showDecision(body.decision);
    $("error").hidden = true;
    $("result").hidden = false;
    setStatus("done");
  } catch (err) {
    showProblem(0, { title: "Request failed", detail: String(err && err.message ? err.message : err), errors: [] });
    setStatus("");
  } finally {
    $("decide").disabled = false;
  }
}

async function loadExample() {
  setStatus("loading the example…");
  const r = await fetch("/examples/volcano-small.json");
  if (!r.ok) {
    const type = r.headers.get("content-type") || "";
    showProblem(r.status, type.includes("json") ? await r.json() : await r.text());
    setStatus("");
    return;
  }
  $("snapshot").value = await r.text();
  setStatus("example loaded");
}

$("file").addEventListener("change", async (ev) => {
  const f = ev.target.files && ev.target.files[0];
  if (!f) return;
  $("snapshot").value = await f.text();
  setStatus(`loaded ${f.name}`);
});
$("load-example").addEventListener("click", loadExample);
$("decide").addEventListener("click", decide);
