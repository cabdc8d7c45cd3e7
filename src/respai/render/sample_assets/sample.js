/* respai sample page: per-group rates from a CSV, computed, signed and verified in the
   browser. Nothing is sent anywhere: no network API is called here, and the page's
   Content-Security-Policy forbids every connection anyway.
   Definitions follow respai's battery: rates are over cases with a prediction, the TPR
   over cases labelled 1 with a prediction, 95% Wilson intervals with the same z. */
(function () {
  "use strict";
  var C = RespaiCore;
  var root = document.documentElement;
  // -NormalDist().inv_cdf((1 - 0.95) / 2) in Python: the z respai's Wilson interval uses
  var Z = 1.9599639845400536;
  var ECDSA = { name: "ECDSA", namedCurve: "P-256" };
  var SIGN = { name: "ECDSA", hash: "SHA-256" };

  var keys = null;          // generated once per page load, never stored
  var keyPromise = null;
  var original = null;      // the computed result, as signed
  var current = null;       // what is shown and re-verified (differs after Tamper)
  var signature = null;     // P1363 r||s, 64 bytes

  function $(id) { return document.getElementById(id); }
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function clone(v) { return JSON.parse(JSON.stringify(v)); }
  function fmt(v) { return typeof v === "number" ? v.toFixed(4) : "\u2014"; }

  // -- CSV -----------------------------------------------------------------------------

  function parseCSV(text) {
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    var rows = [], row = [], field = "", quoted = false, i = 0;
    while (i < text.length) {
      var c = text[i];
      if (quoted) {
        if (c === '"') {
          if (text[i + 1] === '"') { field += '"'; i += 2; continue; }
          quoted = false; i++; continue;
        }
        field += c; i++; continue;
      }
      if (c === '"' && field === "") { quoted = true; i++; continue; }
      if (c === ",") { row.push(field); field = ""; i++; continue; }
      if (c === "\r" || c === "\n") {
        row.push(field); rows.push(row); row = []; field = "";
        if (c === "\r" && text[i + 1] === "\n") i++;
        i++; continue;
      }
      field += c; i++;
    }
    if (field !== "" || row.length) { row.push(field); rows.push(row); }
    return rows.filter(function (r) { return !(r.length === 1 && r[0].trim() === ""); });
  }

  function InputError(message) { this.message = message; }

  function binary(raw, role, line) {
    var t = (raw === undefined ? "" : raw).trim().toLowerCase();
    if (t === "1" || t === "1.0" || t === "true") return 1;
    if (t === "0" || t === "0.0" || t === "false") return 0;
    if (t === "" && role === "prediction") return null;
    if (t === "") throw new InputError("line " + line + ": the label is empty; every case needs a reference label (0 or 1).");
    throw new InputError("line " + line + ": the " + role + " column holds " + JSON.stringify(raw) + "; " + role + "s must be 0 or 1.");
  }

  // -- statistics ----------------------------------------------------------------------

  // the Wilson score interval, written as respai.stats.wilson_interval computes it
  function wilson(k, n) {
    if (n === 0) return null;
    var crit2 = Z * Z;
    var q = k / n;
    var denom = 1.0 + crit2 / n;
    var center = (q + crit2 / (2.0 * n)) / denom;
    var dist = Z * Math.sqrt(q * (1.0 - q) / n + crit2 / (4.0 * n * n)) / denom;
    var lo = k === 0 ? 0.0 : Math.min(Math.max(center - dist, 0.0), 1.0);
    var hi = k === n ? 1.0 : Math.min(Math.max(center + dist, 0.0), 1.0);
    return { lo: lo, hi: hi };
  }

  function measure(k, n) {
    return { numerator: k, denominator: n, value: n ? k / n : null, interval_95: wilson(k, n) };
  }

  function cell() { return { cases: 0, tp: 0, fp: 0, tn: 0, fn: 0, missing: 0 }; }

  function add(c, label, prediction) {
    c.cases++;
    if (prediction === null) { c.missing++; return; }
    if (label === 1) { if (prediction === 1) c.tp++; else c.fn++; }
    else if (prediction === 1) c.fp++; else c.tn++;
  }

  function rates(c) {
    var predicted = c.tp + c.fp + c.tn + c.fn;
    return {
      accuracy: measure(c.tp + c.tn, predicted),
      selection_rate: measure(c.tp + c.fp, predicted),
      tpr: measure(c.tp, c.tp + c.fn),
    };
  }

  function spread(groups, metric, kind) {
    var out = {};
    if (groups.length < 2) { out.value = null; out.undefined_reason = "needs two or more groups"; return out; }
    var empty = groups.filter(function (g) { return g[metric].value === null; }).map(function (g) { return g.group; });
    if (empty.length) {
      out.value = null;
      out.undefined_reason = "no " + (metric === "tpr" ? "cases labelled 1 with a prediction" : "cases with a prediction") + " in group(s) " + empty.join(", ");
      return out;
    }
    var values = groups.map(function (g) { return g[metric].value; });
    var lo = Math.min.apply(null, values), hi = Math.max.apply(null, values);
    out.min_group = groups[values.indexOf(lo)].group;
    out.max_group = groups[values.indexOf(hi)].group;
    if (kind === "ratio") {
      if (hi === 0) { out.value = null; out.undefined_reason = "no group has a selection, so the ratio is 0/0"; return out; }
      out.value = lo / hi;
    } else {
      out.value = hi - lo;
    }
    return out;
  }

  function compute(text, columns) {
    var rows = parseCSV(text);
    if (rows.length < 2) throw new InputError("the CSV needs a header row and at least one case.");
    var header = rows[0].map(function (h) { return h.trim(); });
    var at = {};
    ["label", "prediction", "group"].forEach(function (role) {
      at[role] = header.indexOf(columns[role]);
      if (at[role] < 0) throw new InputError("the CSV has no column " + JSON.stringify(columns[role]) + " for the " + role + ".");
    });
    if (at.label === at.prediction || at.label === at.group || at.prediction === at.group) {
      throw new InputError("the label, prediction and group must be three different columns.");
    }
    var overall = cell(), byGroup = new Map(), withoutGroup = 0;
    for (var i = 1; i < rows.length; i++) {
      var r = rows[i];
      var label = binary(r[at.label], "label", i + 1);
      var prediction = binary(r[at.prediction], "prediction", i + 1);
      add(overall, label, prediction);
      var g = (r[at.group] === undefined ? "" : r[at.group]).trim();
      if (g === "") { withoutGroup++; continue; }
      if (!byGroup.has(g)) byGroup.set(g, cell());
      add(byGroup.get(g), label, prediction);
    }
    var groups = Array.from(byGroup.keys()).sort().map(function (name) {
      var c = byGroup.get(name), m = rates(c);
      return {
        group: name, cases: c.cases, with_prediction: c.cases - c.missing,
        accuracy: m.accuracy, selection_rate: m.selection_rate, tpr: m.tpr,
      };
    });
    return {
      about: "respai sample page: per-group rates computed in this browser",
      columns: { label: columns.label, prediction: columns.prediction, group: columns.group },
      cases: overall.cases,
      cases_without_prediction: overall.missing,
      cases_without_group: withoutGroup,
      overall: rates(overall),
      groups: groups,
      impact_ratio: spread(groups, "selection_rate", "ratio"),
      selection_rate_difference: spread(groups, "selection_rate", "difference"),
      equal_opportunity_difference: spread(groups, "tpr", "difference"),
      method: "rates over cases with a prediction (TPR: over cases labelled 1 with a prediction); " +
        "95% Wilson intervals; impact ratio = min / max selection rate; differences = max - min over the groups",
      wilson_z: Z,
      computed_at: new Date().toISOString(),
    };
  }

  // -- showing -------------------------------------------------------------------------

  function intervalText(m) {
    return m.interval_95 ? "[" + fmt(m.interval_95.lo) + ", " + fmt(m.interval_95.hi) + "]" : "";
  }

  function measureCell(tr, m) {
    var td = el("td", "num");
    td.appendChild(el("span", "v", fmt(m.value)));
    td.appendChild(el("span", "iv", intervalText(m)));
    td.appendChild(el("span", "kn", m.numerator + " / " + m.denominator));
    tr.appendChild(td);
  }

  function statCell(id, item, note) {
    var box = $(id);
    box.querySelector(".v").textContent = fmt(item.value);
    box.querySelector(".n").textContent = item.value === null
      ? item.undefined_reason
      : note(item);
  }

  function render(result) {
    var tbody = $("groups").querySelector("tbody");
    tbody.textContent = "";
    result.groups.forEach(function (g) {
      var tr = el("tr");
      tr.appendChild(el("td", "group", g.group));
      tr.appendChild(el("td", "num", String(g.cases)));
      tr.appendChild(el("td", "num", String(g.with_prediction)));
      measureCell(tr, g.accuracy);
      measureCell(tr, g.selection_rate);
      measureCell(tr, g.tpr);
      tbody.appendChild(tr);
    });
    var acc = result.overall.accuracy;
    $("stat-accuracy").querySelector(".v").textContent = fmt(acc.value);
    $("stat-accuracy").querySelector(".n").textContent = intervalText(acc) + " over " + acc.denominator + " cases with a prediction";
    statCell("stat-ratio", result.impact_ratio, function (x) { return x.min_group + " / " + x.max_group; });
    statCell("stat-srd", result.selection_rate_difference, function (x) { return x.max_group + " \u2212 " + x.min_group; });
    statCell("stat-eod", result.equal_opportunity_difference, function (x) { return x.max_group + " \u2212 " + x.min_group; });
    $("cases-note").textContent = result.cases + " cases; " + result.cases_without_prediction +
      " without a prediction (left out of the rates); " + result.cases_without_group +
      " without a group value (in the overall accuracy only).";
    $("result").textContent = C.jcs(result);
  }

  function setState(state, failed) {
    root.setAttribute("data-failed", failed || "");
    root.setAttribute("data-verified", state);
  }

  async function verifyAndShow(note) {
    setState("pending");
    var ok = await crypto.subtle.verify(SIGN, keys.publicKey, signature, C.utf8(C.jcs(current)));
    var box = $("verification");
    box.setAttribute("data-state", ok ? "true" : "false");
    $("verify-title").textContent = ok ? "Verified" : "Not verified: signature";
    $("verify-summary").textContent = ok
      ? "The ECDSA P-256 signature matches the canonical JSON of the result below."
      : note || "The result no longer matches its signature.";
    setState(ok ? "true" : "false", ok ? "" : "signature");
  }

  async function run() {
    $("input-error").textContent = "";
    setState("pending");
    var result;
    try {
      result = compute($("csv").value, { label: $("label").value, prediction: $("prediction").value, group: $("group").value });
    } catch (e) {
      if (!(e instanceof InputError)) throw e;
      $("input-error").textContent = "Cannot compute: " + e.message;
      $("output").hidden = true;
      setState("error");
      return;
    }
    if (!keys) {
      try { keys = await keyPromise; } catch (e) { keys = null; }
    }
    original = result;
    current = clone(result);
    render(current);
    $("output").hidden = false;
    $("tamper").disabled = false;
    $("reset").disabled = true;
    $("tamper-note").textContent = "";
    if (!keys) {
      $("verification").setAttribute("data-state", "unsupported");
      $("verify-title").textContent = "Not signed: this browser offers no WebCrypto ECDSA here";
      $("verify-summary").textContent = "Open the page from a file or over https in a current browser.";
      $("tamper").disabled = true;
      setState("unsupported");
      return;
    }
    signature = new Uint8Array(await crypto.subtle.sign(SIGN, keys.privateKey, C.utf8(C.jcs(current))));
    $("signature").textContent = C.hex(signature);
    await verifyAndShow();
  }

  function tamper() {
    current = clone(original);
    var target = current.groups.length ? current.groups[0].selection_rate : current.overall.accuracy;
    target.value = (target.value === null ? 0 : target.value) + 0.05;
    render(current);
    $("tamper").disabled = true;
    $("reset").disabled = false;
    var where = current.groups.length ? "the selection rate of " + current.groups[0].group : "the overall accuracy";
    $("tamper-note").textContent = "Changed " + where + " to " + fmt(target.value) + " after signing.";
    return verifyAndShow("A number in the result was changed after it was signed, so the signature no longer matches. Press Reset to restore it.");
  }

  function reset() {
    current = clone(original);
    render(current);
    $("tamper").disabled = false;
    $("reset").disabled = true;
    $("tamper-note").textContent = "";
    return verifyAndShow();
  }

  // -- columns and input ---------------------------------------------------------------

  function fillSelect(select, names, preferred) {
    var keep = select.value;
    select.textContent = "";
    names.forEach(function (n) { var o = el("option", "", n); o.value = n; select.appendChild(o); });
    var pick = names.indexOf(keep) >= 0 ? keep : preferred;
    if (pick !== undefined && names.indexOf(pick) >= 0) select.value = pick;
  }

  function onText() {
    var text = $("csv").value;
    var end = text.search(/\r?\n/);
    var first = parseCSV(end < 0 ? text : text.slice(0, end))[0] || [];
    var names = first.map(function (h) { return h.trim(); }).filter(function (h) { return h !== ""; });
    var others = names.filter(function (n) { return ["label", "prediction", "score"].indexOf(n.toLowerCase()) < 0; });
    var groupGuess = others.filter(function (n) { return !/(^|_)id$/i.test(n); })[0] || others[0];
    fillSelect($("label"), names, names.indexOf("label") >= 0 ? "label" : names[0]);
    fillSelect($("prediction"), names, names.indexOf("prediction") >= 0 ? "prediction" : names[1]);
    fillSelect($("group"), names, groupGuess);
    $("compute").disabled = names.length < 3;
  }

  function example() {
    // a fixed synthetic file: three regions whose decisions differ in selection and TPR
    var seed = 20261201;
    function rand() { seed = (seed * 48271) % 2147483647; return seed / 2147483647; }
    var regions = [["north", 0.88, 0.16], ["south", 0.84, 0.12], ["east", 0.70, 0.08]];
    var lines = ["person_id,label,prediction,score,region"];
    for (var i = 0; i < 600; i++) {
      var reg = regions[Math.floor(rand() * 3)];
      var label = rand() < 0.42 ? 1 : 0;
      var selected = rand() < (label === 1 ? reg[1] : reg[2]) ? 1 : 0;
      var pred = rand() < 0.01 ? "" : String(selected);
      lines.push((100000 + i) + "," + label + "," + pred + "," + rand().toFixed(3) + "," + reg[0]);
    }
    $("csv").value = lines.join("\n") + "\n";
    onText();
    $("group").value = "region";
    return run();
  }

  function start() {
    if (window.isSecureContext && window.crypto && crypto.subtle) {
      keyPromise = crypto.subtle.generateKey(ECDSA, true, ["sign", "verify"]).then(async function (k) {
        var raw = new Uint8Array(await crypto.subtle.exportKey("raw", k.publicKey));
        $("key-id").textContent = "sha256:" + C.hex(await C.sha256(raw));
        return k;
      });
    } else {
      keyPromise = Promise.reject(new Error("no WebCrypto"));
      $("key-id").textContent = "none: WebCrypto is not available in this context";
    }
    keyPromise.catch(function () { /* reported when a result is computed */ });
    $("csv").addEventListener("input", onText);
    $("file").addEventListener("change", function () {
      var file = $("file").files[0];
      if (!file) return;
      file.text().then(function (text) { $("csv").value = text; onText(); return run(); });
    });
    $("example").addEventListener("click", example);
    $("compute").addEventListener("click", run);
    $("tamper").addEventListener("click", tamper);
    $("reset").addEventListener("click", reset);
    onText();
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
