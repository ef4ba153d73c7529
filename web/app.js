// The page around occam.js: builds the same command line the CLI takes,
// runs it in the WebAssembly module (occam_run, web/occam_web.cc) and shows
// the JSON answer and the HTML report. No modelling here.
"use strict";

// Runs `occam <args...>`; returns {exit_code, out, err}.
function runOccam(module, args) {
  const ptr = module.ccall("occam_run", "number", ["string"], [JSON.stringify(args)]);
  const reply = JSON.parse(module.UTF8ToString(ptr));
  module._free(ptr);
  return reply;
}

// The CLI's message without its "occam: error: " prefix.
function errorMessage(reply) {
  const line = reply.err.split("\n").find((l) => l.startsWith("occam: error: ")) || reply.err;
  return line.replace(/^occam: error: /, "");
}

function listCatalog(module, what) {
  const reply = runOccam(module, ["list", what, "--json"]);
  if (reply.exit_code !== 0) throw new Error(errorMessage(reply));
  return JSON.parse(reply.out)[what].map((entry) => entry.name);
}

function fillSelect(select, names, chosen) {
  for (const name of names) {
    const option = document.createElement("option");
    option.value = option.textContent = name;
    option.selected = name === chosen;
    select.appendChild(option);
  }
}

function shellQuote(word) {
  return /^[A-Za-z0-9_=.,/:+@%-]+$/.test(word) ? word : "'" + word.replace(/'/g, "'\\''") + "'";
}

// The plan's arguments from the form; a pasted config is written to the
// module's in-memory file system and passed as a file, as the CLI reads it.
function planArgs(module, form) {
  let model = form.model;
  if (form.config.trim() !== "") {
    module.FS.writeFile("/config.json", form.config);
    model = "/config.json";
  }
  return ["plan", "--model", model, "--cluster", form.cluster, "--chips", form.chips,
          "--seq-len", form.seq_len, "--global-batch-tokens", form.tokens, "--top", "10",
          "--threads", "1", "--json", "--html", "/report.html"];
}

function showLayout(id, layout) {
  document.getElementById(id).textContent = layout ? layout.plan : "none";
  document.getElementById(id + "_step").textContent =
      layout ? layout.step_time_s.toFixed(3) + " s" : "";
  document.getElementById(id + "_mfu").textContent =
      layout ? (100 * layout.mfu).toFixed(1) + "%" : "";
}

function showError(message) {
  const error = document.getElementById("error");
  error.textContent = message;
  error.hidden = false;
  document.getElementById("answer").hidden = true;
  document.body.dataset.state = "error";
}

function plan(module, form) {
  const args = planArgs(module, form);
  const start = performance.now();
  const reply = runOccam(module, args);
  const ms = performance.now() - start;
  if (reply.exit_code !== 0) return showError(errorMessage(reply));
  const answer = JSON.parse(reply.out);
  document.getElementById("error").hidden = true;
  const verdict = document.getElementById("verdict");
  verdict.textContent = answer.pp_verdict;
  verdict.dataset.ppNeeded = String(answer.pp_needed);
  showLayout("best", answer.best);
  showLayout("simplest", answer.simplest);
  showLayout("no_pp", answer.best_without_pp);
  document.getElementById("timing").textContent =
      "Planned in " + (ms / 1000).toFixed(2) + " s in this page (" +
      answer.layouts_evaluated + " layouts evaluated).";
  document.getElementById("timing").dataset.ms = ms.toFixed(0);
  document.getElementById("command").textContent = "occam " + args.map(shellQuote).join(" ");
  document.getElementById("report").srcdoc = module.FS.readFile("/report.html", {encoding: "utf8"});
  document.getElementById("answer").hidden = false;
  document.body.dataset.state = "done";
}

function readForm() {
  const value = (id) => document.getElementById(id).value;
  return {model: value("model"), config: value("config"), cluster: value("cluster"),
          chips: value("chips"), seq_len: value("seq_len"), tokens: value("tokens")};
}

// ?model=...&cluster=...&chips=...&seq_len=...&tokens=...&config=...&run=1
// fills the form (and runs it): links to an answer, and the browser test.
function applyQuery() {
  const query = new URLSearchParams(window.location.search);
  for (const id of ["model", "cluster", "chips", "seq_len", "tokens", "config"]) {
    if (query.has(id)) document.getElementById(id).value = query.get(id);
  }
  return query.get("run") === "1";
}

createOccam().then((module) => {
  try {
    fillSelect(document.getElementById("model"), listCatalog(module, "models"), "deepseek-v3");
    fillSelect(document.getElementById("cluster"), listCatalog(module, "clusters"), "h800");
  } catch (e) {
    return showError(e.message);
  }
  document.getElementById("version").textContent =
      runOccam(module, ["--version"]).out.trim();
  const button = document.getElementById("run");
  button.disabled = false;
  button.textContent = "Plan";
  document.getElementById("form").addEventListener("submit", (event) => {
    event.preventDefault();
    plan(module, readForm());
  });
  if (applyQuery()) plan(module, readForm());
});
