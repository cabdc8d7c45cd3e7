/* respai evidence report: verify the embedded signed record in the browser.
   Reads the DSSE envelope and the raw Ed25519 public key from two JSON script tags (the
   test names come from RespaiTables, rendered from respai's test registry into this
   script, so no test id or label is spelt here; the copy in the respai-test-names tag
   must equal them), runs the same named checks as `respai verify` (all but the JSON
   Schema check; "derived", the re-derivation of a compact record's summaries from its
   counts, as respai.recompute does it) and then page_text (RespaiBind: every text on the page is the signed
   record's or one of the report's labels), shows the outcome with the full id of the key
   the signature was checked with, and sets
   <html data-verified="true|false|unsupported" data-failed="...">.
   Everything is read with textContent and written with textContent: nothing from the
   record is ever parsed as HTML. */
(function () {
  "use strict";
  var C = RespaiCore;
  var root = document.documentElement;
  // this script's own element: its text is what the CSP and the page code name
  var SELF = document.currentScript;
  var PAYLOAD_TYPE = "application/vnd.in-toto+json";
  var STATEMENT_TYPE = "https://in-toto.io/Statement/v1";
  var PREDICATE_TYPE = "https://respai.org/evidence-record/v1";
  var GENESIS = "sha256:" + "0".repeat(64);
  var DIGEST_ID = /^sha256:[0-9a-f]{64}$/;
  var HEX64 = /^[0-9a-f]{64}$/;
  // RFC 8032 test vector 1: only used to find out whether this browser has Ed25519
  var PROBE_KEY = "11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=";

  function readJSON(id) {
    var el = document.getElementById(id);
    if (!el) return null;
    try { return JSON.parse(el.textContent); } catch (e) { return null; }
  }

  var original = readJSON("respai-envelope");
  var keyInfo = readJSON("respai-public-key");
  var testNames = RespaiTables.testNames;
  var embeddedNames = readJSON("respai-test-names");
  var current = original;
  var tampered = false;
  var signingKey = null; // the full id of the key the signature was checked with
  var ownedAtLoad = null; // RespaiBind.ownedProblems() before the script wrote anything
  var pageCode = null; // "sha256:<hex>" of this script's text

  function isObject(v) { return v !== null && typeof v === "object" && !Array.isArray(v); }
  function isInt(v) { return typeof v === "number" && Number.isInteger(v); }
  function check(name, ok, detail) { return { name: name, ok: ok, detail: detail }; }
  // "Impact ratio (impact_ratio:sex)": the test's display name, then the record's key
  function testLabel(r) {
    var key = r.test_key || r.test_id;
    var name = Object.prototype.hasOwnProperty.call(testNames, r.test_id) ? testNames[r.test_id] : null;
    return typeof name === "string" ? name + " (" + key + ")" : key;
  }
  function label(i, r) {
    var s = isObject(r) && isInt(r.seq) ? "seq " + r.seq : "records[" + i + "]";
    if (isObject(r) && typeof r.test_id === "string") s += ", " + testLabel(r);
    else if (isObject(r) && typeof r.record_type === "string") s += " (" + r.record_type + ")";
    return s;
  }
  function listed(problems) {
    var shown = problems.slice(0, 6).join("; ");
    return problems.length > 6 ? shown + "; and " + (problems.length - 6) + " more" : shown;
  }

  function pae(type, payload) {
    var t = C.utf8(type);
    return C.concat([C.utf8("DSSEv1 " + t.length + " "), t, C.utf8(" " + payload.length + " "), payload]);
  }

  async function ed25519Available() {
    if (!window.isSecureContext || !window.crypto || !crypto.subtle) return false;
    try {
      await crypto.subtle.importKey("raw", C.b64decode(PROBE_KEY), { name: "Ed25519" }, false, ["verify"]);
      return true;
    } catch (e) {
      return false;
    }
  }

  function readEnvelope(env) {
    if (!isObject(env)) return { check: check("envelope", false, "the envelope is not a JSON object") };
    if (typeof env.payload !== "string") return { check: check("envelope", false, "the envelope has no string 'payload'") };
    var payload;
    try { payload = C.b64decode(env.payload); } catch (e) {
      return { check: check("envelope", false, "the envelope's 'payload' is not base64") };
    }
    var problems = [];
    if (env.payloadType !== PAYLOAD_TYPE) problems.push("payloadType is " + JSON.stringify(env.payloadType) + ", expected " + PAYLOAD_TYPE);
    if (!Array.isArray(env.signatures) || env.signatures.length === 0) problems.push("'signatures' is not a non-empty list");
    else env.signatures.forEach(function (s, i) {
      try { C.b64decode(isObject(s) ? s.sig : null); } catch (e) { problems.push("signatures[" + i + "].sig is not base64"); }
    });
    var n = Array.isArray(env.signatures) ? env.signatures.length : 0;
    return {
      payload: payload,
      check: problems.length ? check("envelope", false, listed(problems))
        : check("envelope", true, "DSSE envelope, " + PAYLOAD_TYPE + ", " + n + " signature(s)"),
    };
  }

  async function checkSignature(env, payload, predicate, supported) {
    signingKey = null;
    if (isObject(keyInfo) && typeof keyInfo.raw_b64 === "string") {
      try { signingKey = "sha256:" + C.hex(await C.sha256(C.b64decode(keyInfo.raw_b64))); } catch (e) { signingKey = null; }
    }
    if (!supported) return check("signature", false, "this browser cannot check Ed25519 signatures");
    if (!isObject(keyInfo) || typeof keyInfo.raw_b64 !== "string") {
      return check("signature", false, "no public key was embedded in this page, so the signature cannot be checked");
    }
    var raw, key;
    try {
      raw = C.b64decode(keyInfo.raw_b64);
      key = await crypto.subtle.importKey("raw", raw, { name: "Ed25519" }, false, ["verify"]);
    } catch (e) {
      return check("signature", false, "the embedded public key is not a 32-byte Ed25519 key");
    }
    var keyId = "sha256:" + C.hex(await C.sha256(raw));
    var signed = pae(env.payloadType, payload);
    var matched = false;
    for (var i = 0; i < (env.signatures || []).length; i++) {
      var entry = env.signatures[i], sig;
      try { sig = C.b64decode(isObject(entry) ? entry.sig : null); } catch (e) { continue; }
      if (await crypto.subtle.verify({ name: "Ed25519" }, key, sig, signed)) { matched = true; break; }
    }
    if (!matched) return check("signature", false, "no signature verifies with key " + keyId + " (the payload or the signature was changed, or another key signed)");
    var claimed = isObject(predicate) ? predicate.key_id : undefined;
    if (claimed !== keyId) return check("signature", false, "the signature matches key " + keyId + ", but the record names key " + JSON.stringify(claimed));
    return check("signature", true, "Ed25519 signature over the DSSE PAE verifies with key " + keyId);
  }

  function checkCanonical(payload, statement) {
    var canonical;
    try { canonical = C.utf8(C.jcs(statement)); } catch (e) {
      return check("canonical_payload", false, "the payload has no canonical form: " + e.message);
    }
    if (!C.equalBytes(canonical, payload)) {
      return check("canonical_payload", false, "the payload is not RFC 8785 canonical JSON (" + payload.length + " bytes, canonical form " + canonical.length + " bytes)");
    }
    return check("canonical_payload", true, payload.length + " bytes of RFC 8785 canonical JSON");
  }

  function checkStatement(st) {
    if (!isObject(st)) return check("statement", false, "the payload is not a JSON object");
    var problems = [];
    if (st._type !== STATEMENT_TYPE) problems.push("_type is " + JSON.stringify(st._type));
    if (st.predicateType !== PREDICATE_TYPE) problems.push("predicateType is " + JSON.stringify(st.predicateType));
    if (!Array.isArray(st.subject) || st.subject.length === 0) problems.push("subject is not a non-empty list");
    else st.subject.forEach(function (s, i) {
      if (!isObject(s) || typeof s.name !== "string") problems.push("subject[" + i + "] has no string name");
      if (!isObject(s) || !isObject(s.digest) || !HEX64.test(String(s.digest.sha256))) problems.push("subject[" + i + "] has no sha256 digest");
    });
    if (!isObject(st.predicate)) problems.push("predicate is not an object");
    return problems.length ? check("statement", false, listed(problems))
      : check("statement", true, "in-toto Statement v1, " + st.subject.length + " subject(s)");
  }

  function recordsOf(predicate) {
    if (!isObject(predicate)) return "the statement has no predicate object";
    if (!Array.isArray(predicate.records)) return "the record has no 'records' list";
    if (predicate.records.length === 0) return "the record's 'records' list is empty";
    return predicate.records;
  }

  async function checkRecordIds(predicate) {
    var records = recordsOf(predicate);
    if (typeof records === "string") return check("record_id", false, records);
    var problems = [];
    for (var i = 0; i < records.length; i++) {
      var r = records[i];
      if (!isObject(r)) { problems.push("records[" + i + "] is not an object"); continue; }
      var body = {};
      Object.keys(r).forEach(function (k) { if (k !== "record_id") body[k] = r[k]; });
      var computed;
      try { computed = "sha256:" + C.hex(await C.sha256(C.utf8(C.jcs(body)))); } catch (e) {
        problems.push(label(i, r) + ": content has no canonical form"); continue;
      }
      if (computed !== r.record_id) problems.push(label(i, r) + ": record_id does not match its content");
    }
    return problems.length ? check("record_id", false, listed(problems))
      : check("record_id", true, "all " + records.length + " record ids match their content");
  }

  function checkChain(predicate) {
    var records = recordsOf(predicate);
    if (typeof records === "string") return check("chain", false, records);
    var problems = [];
    var first = isObject(records[0]) ? records[0] : {};
    var start = isInt(first.seq) ? first.seq : 0;
    if (!isInt(first.seq)) problems.push(label(0, first) + ": seq is not an integer");
    records.forEach(function (r, i) {
      if (!isObject(r)) { problems.push("records[" + i + "] is not an object"); return; }
      if (i > 0 && r.seq !== start + i) problems.push(label(i, r) + " at position " + i + ": seq expected " + (start + i) + " (gap or reorder)");
      if (r.run_seq !== i) problems.push(label(i, r) + " at position " + i + ": run_seq is " + JSON.stringify(r.run_seq));
      if (i > 0) {
        var before = records[i - 1];
        if (!isObject(before) || r.prev_record_id !== before.record_id) problems.push(label(i, r) + ": prev_record_id is not the id of the record before it");
      }
    });
    var origin;
    if (start === 0) {
      if (first.prev_record_id !== GENESIS) problems.push("the record at seq 0 links to " + JSON.stringify(first.prev_record_id) + ", not the genesis id");
      origin = "starts at seq 0 from the genesis id";
    } else {
      if (first.prev_record_id === GENESIS || !DIGEST_ID.test(String(first.prev_record_id))) problems.push("the first record (seq " + start + ") does not link to a record id");
      origin = "continues a ledger after " + first.prev_record_id;
    }
    return problems.length ? check("chain", false, listed(problems))
      : check("chain", true, records.length + " records, seq " + start + ".." + (start + records.length - 1) + ", each linked to the one before; the run " + origin);
  }

  function checkBrackets(predicate) {
    var records = recordsOf(predicate);
    if (typeof records === "string") return check("run_brackets", false, records);
    var problems = [], last = records.length - 1;
    records.forEach(function (r, i) {
      var expected = i === 0 ? "run_start" : i === last ? "run_end" : "test";
      var kind = isObject(r) ? r.record_type : undefined;
      if (kind !== expected) problems.push(label(i, r) + ": record_type " + JSON.stringify(kind) + ", expected " + expected);
      if (isObject(r) && r.run_id !== predicate.run_id) problems.push(label(i, r) + ": run_id is not the record's run");
    });
    var end = records[last];
    if (isObject(end) && end.record_type === "run_end") {
      var before = records.slice(0, last).map(function (r) { return isObject(r) ? r.record_id : null; });
      if (end.record_count !== before.length) problems.push("run_end says record_count " + JSON.stringify(end.record_count) + " but " + before.length + " records precede it");
      if (!Array.isArray(end.record_ids) || end.record_ids.length !== before.length ||
          end.record_ids.some(function (x, i) { return x !== before[i]; })) {
        problems.push("run_end does not list exactly the ids of the records before it, in order");
      }
    }
    return problems.length ? check("run_brackets", false, listed(problems))
      : check("run_brackets", true, "run_start, " + (records.length - 2) + " test record(s), run_end listing all " + last + " preceding ids");
  }

  function checkSubjects(st, predicate) {
    if (!isObject(predicate)) return check("subjects", false, "the statement has no predicate object");
    var given = new Set();
    (Array.isArray(st.subject) ? st.subject : []).forEach(function (s) {
      if (isObject(s) && isObject(s.digest) && typeof s.digest.sha256 === "string") given.add(s.digest.sha256);
    });
    var wanted = {}, fp = isObject(predicate.fingerprints) ? predicate.fingerprints : {};
    ["dataset", "model"].forEach(function (k) {
      if (isObject(fp[k]) && typeof fp[k].sha256 === "string") wanted[k] = fp[k].sha256;
    });
    var problems = [];
    Object.keys(wanted).forEach(function (k) { if (!given.has(wanted[k])) problems.push("the " + k + " fingerprint is not a Statement subject"); });
    var values = Object.keys(wanted).map(function (k) { return wanted[k]; });
    given.forEach(function (d) { if (values.indexOf(d) < 0) problems.push("the subject digest " + d + " is not the dataset or model fingerprint"); });
    if (!("dataset" in wanted)) problems.push("the record has no dataset fingerprint");
    return problems.length ? check("subjects", false, listed(problems))
      : check("subjects", true, "subject digests equal the " + Object.keys(wanted).join(" and ") + " fingerprint(s)");
  }

  // --- derived: a compact record's summaries re-derived from its counts -----------------
  // The browser's copy of respai.recompute.check_compact (what `respai verify` runs as its
  // "derived" check): a grouping written as columns of counts (record format 1.1) must be
  // whole, and what the test records over it state (small cells, lowest and highest group,
  // a group rule's upper gap bound) must be what the counts give. The rates' terms, the
  // columns and the tolerance come from RespaiTables.derived (the Python registry).
  var DERIVED = RespaiTables.derived;

  function derivedRateKey(name) {
    if (typeof name !== "string") return null;
    if (Object.prototype.hasOwnProperty.call(DERIVED.rates, name)) return name;
    var keys = Object.keys(DERIVED.rates);
    for (var i = 0; i < keys.length; i++) if (DERIVED.rates[keys[i]][0] === name) return keys[i];
    return null;
  }
  function termSum(cols, terms, i) {
    var total = 0;
    Object.keys(terms).forEach(function (c) { total += terms[c] * cols[c][i]; });
    return total;
  }

  // log Gamma by Lanczos (g = 7, 9 terms): about 1e-15 relative, far inside the tolerance
  var LANCZOS = [0.99999999999980993, 676.5203681218851, -1259.1392167224028,
    771.32342877765313, -176.61502916214059, 12.507343278686905, -0.13857109526572012,
    9.9843695780195716e-6, 1.5056327351493116e-7];
  function lgamma(x) {
    if (x < 0.5) return Math.log(Math.PI / Math.abs(Math.sin(Math.PI * x))) - lgamma(1 - x);
    x -= 1;
    var a = LANCZOS[0], t = x + 7.5;
    for (var i = 1; i < 9; i++) a += LANCZOS[i] / (x + i);
    return 0.5 * Math.log(2 * Math.PI) + (x + 0.5) * Math.log(t) - t + Math.log(a);
  }
  // the continued fraction of the incomplete beta (modified Lentz)
  function betaFraction(a, b, x) {
    var tiny = 1e-300, qab = a + b, qap = a + 1, qam = a - 1;
    var c = 1, d = 1 - qab * x / qap;
    if (Math.abs(d) < tiny) d = tiny;
    d = 1 / d;
    var h = d;
    for (var m = 1; m <= 100000; m++) {
      var m2 = 2 * m, aa = m * (b - m) * x / ((qam + m2) * (a + m2));
      d = 1 + aa * d; if (Math.abs(d) < tiny) d = tiny;
      c = 1 + aa / c; if (Math.abs(c) < tiny) c = tiny;
      d = 1 / d; h *= d * c;
      aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
      d = 1 + aa * d; if (Math.abs(d) < tiny) d = tiny;
      c = 1 + aa / c; if (Math.abs(c) < tiny) c = tiny;
      d = 1 / d;
      var del = d * c;
      h *= del;
      if (Math.abs(del - 1) < 1e-16) break;
    }
    return h;
  }
  // the regularised incomplete beta I_x(a, b)
  function betaInc(a, b, x) {
    if (x <= 0) return 0;
    if (x >= 1) return 1;
    var front = Math.exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * Math.log(x) + b * Math.log1p(-x));
    if (x < (a + 1) / (a + b + 2)) return front * betaFraction(a, b, x) / a;
    return 1 - front * betaFraction(b, a, 1 - x) / b;
  }
  // the x with I_x(a, b) = p, by bisection to the last bit (I is increasing in x)
  function betaIncInv(a, b, p) {
    var lo = 0, hi = 1;
    for (var i = 0; i < 200 && hi - lo > 0; i++) {
      var mid = lo + (hi - lo) / 2;
      if (mid <= lo || mid >= hi) break;
      if (betaInc(a, b, mid) < p) lo = mid; else hi = mid;
    }
    return lo + (hi - lo) / 2;
  }
  // max over i != j of hi_i - lo_j, Clopper-Pearson at alpha per group, the cases without
  // a decision counted as events for hi and as non-events for lo
  function upperGap(events, decided, missing, alpha) {
    var memo = new Map(), los = [], his = [];
    for (var i = 0; i < events.length; i++) {
      var k = events[i], m = missing[i], n = decided[i] + m, top = k + m;
      var key = k + "," + m + "," + n, got = memo.get(key);
      if (!got) {
        var lo = n > 0 && k > 0 ? betaIncInv(k, n - k + 1, alpha / 2) : 0;
        var hi = n > 0 && top < n ? 1 - betaIncInv(n - top, top + 1, alpha / 2) : 1;
        got = [lo, hi];
        memo.set(key, got);
      }
      los.push(got[0]); his.push(got[1]);
    }
    var first = -1, second = -1;
    for (var j = 0; j < los.length; j++) {
      if (first < 0 || los[j] < los[first]) { second = first; first = j; }
      else if (second < 0 || los[j] < los[second]) second = j;
    }
    var best = -Infinity;
    for (var g = 0; g < his.length; g++) {
      var other = g === first ? second : first;
      if (other >= 0) best = Math.max(best, his[g] - los[other]);
    }
    return best;
  }
  function lessRate(k1, n1, k2, n2) { return BigInt(k1) * BigInt(n2) < BigInt(k2) * BigInt(n1); }

  // an equalized-odds rule states its summaries in its parts, one rule per error rate
  function checkDerivedTest(rec, cols, labels, problems) {
    var details = isObject(rec.details) ? rec.details : {};
    var where = "test " + rec.test_key, checked = 0;
    if (Array.isArray(details.parts)) details.parts.forEach(function (part) {
      if (isObject(part)) checked += checkDerivedDetails(rec.test_id, where + " (" + part.rate + ")", part, cols, labels, problems);
    });
    return checked + checkDerivedDetails(rec.test_id, where, details, cols, labels, problems);
  }

  function checkDerivedDetails(testId, where, details, cols, labels, problems) {
    var key = derivedRateKey(details.rate);
    if (key === null) return 0;  // equalized_odds itself: its parts state the summaries
    var rate = DERIVED.rates[key], events = [], decided = [], missing = [];
    for (var i = 0; i < labels.length; i++) {
      events.push(termSum(cols, rate[1], i));
      decided.push(termSum(cols, rate[2], i));
      missing.push(termSum(cols, rate[3], i));
    }
    var checked = 0;
    if (isInt(details.min_cell)) {
      var floor = Math.max(details.min_cell, 1);
      var small = labels.filter(function (lab, g) { return decided[g] < floor; });
      var stated = Array.isArray(details.small_cells) ? details.small_cells : [];
      var names = stated.map(function (s) { return isObject(s) ? s.group : s; });
      if (names.length !== small.length || names.some(function (x, g) { return x !== small[g]; })) {
        problems.push(where + ": small_cells lists " + names.length + " group(s), the counts give " + small.length + " under min_cell " + details.min_cell);
      }
      checked += 1;
    }
    if (Object.prototype.hasOwnProperty.call(details, "min_group") && decided.every(function (n) { return n > 0; })) {
      var low = 0, high = 0;
      for (var g = 1; g < labels.length; g++) {
        if (lessRate(events[g], decided[g], events[low], decided[low])) low = g;
        if (lessRate(events[high], decided[high], events[g], decided[g])) high = g;
      }
      [["min_group", labels[low]], ["max_group", labels[high]]].forEach(function (pair) {
        if (details[pair[0]] !== pair[1]) problems.push(where + ": " + pair[0] + " is " + JSON.stringify(details[pair[0]]) + ", the counts give " + JSON.stringify(pair[1]));
      });
      checked += 1;
    }
    var bounds = details.gap_bounds, alpha = details.alpha_per_group;
    var method = Object.prototype.hasOwnProperty.call(details, "method") ? details.method : "simultaneous";
    if (testId === RespaiTables.testIds.groupRule && isObject(bounds) && typeof alpha === "number"
        && method === "simultaneous" && (details.reference === null || details.reference === undefined) && labels.length >= 2) {
      var upper = upperGap(events, decided, missing, alpha);
      if (typeof bounds.hi !== "number" || Math.abs(bounds.hi - upper) > DERIVED.tolerance) {
        problems.push(where + ": gap_bounds.hi is " + JSON.stringify(bounds.hi) + ", the counts give " + upper + " (Clopper-Pearson at " + alpha + " per group, missing decisions at their worst)");
      }
      checked += 1;
    }
    return checked;
  }

  // null when the record has no compact grouping (the check is then not run, as in Python)
  function checkDerived(predicate) {
    var counts = isObject(predicate) ? predicate.counts : null;
    var groupings = isObject(counts) && isObject(counts.groupings) ? counts.groupings : null;
    if (!groupings) return null;
    var names = Object.keys(groupings).filter(function (n) { return isObject(groupings[n]) && groupings[n].layout === "columns"; });
    if (!names.length) return null;
    var problems = [], summaries = 0, total = 0;
    var records = Array.isArray(predicate.records) ? predicate.records : [];
    names.forEach(function (name) {
      var entry = groupings[name], groups = isInt(entry.group_count) ? entry.group_count : 0;
      var where = "counts.groupings." + name, columns = entry.columns;
      if (!isObject(columns)) { problems.push(where + ".columns: missing"); return; }
      var keys = columns.key, attributes = Array.isArray(entry.attributes) ? entry.attributes : [];
      if (!Array.isArray(keys) || keys.length !== groups) { problems.push(where + ".columns.key: not a list of " + groups + " keys"); return; }
      if (!keys.every(function (k) { return Array.isArray(k) && k.length === attributes.length; })) {
        problems.push(where + ".columns.key: a key does not name one value per attribute"); return;
      }
      var labels = keys.map(function (k) { return k.map(String).join(" × "); });
      if (new Set(labels).size !== labels.length) problems.push(where + ".columns.key: a group is listed twice");
      var cols = {}, whole = true;
      DERIVED.cellColumns.forEach(function (c) {
        var v = columns[c];
        if (!Array.isArray(v) || v.length !== groups) { problems.push(where + ".columns." + c + ": not a list of " + groups + " values"); whole = false; }
        else if (!v.every(function (x) { return isInt(x) && x >= 0; })) { problems.push(where + ".columns." + c + ": not all non-negative integers"); whole = false; }
        else cols[c] = v;
      });
      if (!whole && groups) return;
      var inGroups = 0, left = 0;
      DERIVED.cellColumns.forEach(function (c) { (cols[c] || []).forEach(function (x) { inGroups += x; }); });
      var leftOut = isObject(entry.left_out) ? entry.left_out : {};
      Object.keys(leftOut).forEach(function (r) { if (isInt(leftOut[r])) left += leftOut[r]; });
      if (inGroups + left !== counts.cases) {
        problems.push(where + ": the groups' " + inGroups.toLocaleString("en-US") + " cases and " + left.toLocaleString("en-US") + " left out do not add up to the record's " + JSON.stringify(counts.cases) + " cases");
      }
      total += groups;
      records.forEach(function (rec) {
        if (!isObject(rec) || rec.record_type !== "test") return;
        var derived = isObject(rec.details) ? rec.details.groups_derived : null;
        if (!isObject(derived) || derived.from !== where) return;
        if (derived.groups !== groups) problems.push("test " + rec.test_key + ": groups_derived says " + JSON.stringify(derived.groups) + " groups, " + where + " has " + groups);
        summaries += checkDerivedTest(rec, cols, labels, problems);
      });
    });
    if (problems.length) return check("derived", false, listed(problems));
    return check("derived", true, names.length + " compact grouping(s), " + total.toLocaleString("en-US") + " groups: the columns are whole and " + summaries + " stated summaries equal what the counts give");
  }

  async function verify(env, supported) {
    var read = readEnvelope(env);
    var checks = [read.check];
    if (!read.payload) return checks;
    var statement, parseError = null;
    try { statement = JSON.parse(C.fromUtf8(read.payload)); } catch (e) { parseError = e.message; }
    var predicate = isObject(statement) && isObject(statement.predicate) ? statement.predicate : null;
    checks.push(await checkSignature(env, read.payload, predicate, supported));
    if (parseError !== null) {
      checks.push(check("canonical_payload", false, "the payload is not UTF-8 JSON: " + parseError));
      return checks;
    }
    checks.push(checkCanonical(read.payload, statement));
    checks.push(checkStatement(statement));
    checks.push(await checkRecordIds(predicate));
    checks.push(checkChain(predicate));
    checks.push(checkBrackets(predicate));
    checks.push(isObject(statement) ? checkSubjects(statement, predicate) : check("subjects", false, "the payload is not a JSON object"));
    var derived = checkDerived(predicate);
    if (derived !== null) checks.push(derived);
    checks.push(await checkPageText(statement));
    return checks;
  }

  // "seq 3, Impact ratio (impact_ratio:sex): verdict" for /predicate/records/3/verdict
  function whereIn(statement) {
    var records = isObject(statement) && isObject(statement.predicate) && Array.isArray(statement.predicate.records)
      ? statement.predicate.records : [];
    return function (ptr) {
      var m = /^\/predicate\/records\/(0|[1-9][0-9]*)(\/.*)?$/.exec(ptr);
      var rest = function (p) { return p.slice(1).split("/").map(function (k) { return k.replace(/~1/g, "/").replace(/~0/g, "~"); }).join(" "); };
      if (m && +m[1] < records.length) return label(+m[1], records[+m[1]]) + (m[2] ? ": " + rest(m[2]) : "");
      if (ptr === "" || ptr === "/predicate") return "the record";
      return "the record's " + rest(ptr.indexOf("/predicate/") === 0 ? ptr.slice(10) : ptr);
    };
  }

  // what the page check needs of the document that only WebCrypto can compute
  async function pageFacts() {
    var digest = async function (text) { return C.sha256(C.utf8(text)); };
    var own = SELF ? await digest(SELF.textContent) : null;
    var styles = new Map();
    var sheets = document.querySelectorAll("style");
    for (var i = 0; i < sheets.length; i++) styles.set(sheets[i], "'sha256-" + C.b64encode(await digest(sheets[i].textContent)) + "'");
    pageCode = own ? "sha256:" + C.hex(own) : null;
    return {
      script: SELF,
      scriptHash: own ? "'sha256-" + C.b64encode(own) + "'" : "",
      styleHashes: styles,
      owned: ownedAtLoad || [],
    };
  }

  async function checkPageText(statement) {
    if (!isObject(statement)) return check("page_text", false, "the payload is not a JSON object, so the page's text cannot be checked against it");
    var problems = RespaiBind.pageProblems(statement, whereIn(statement), await pageFacts());
    if (JSON.stringify(embeddedNames) !== JSON.stringify(testNames)) problems.unshift("the test names embedded in the page (respai-test-names) were changed");
    if (problems.length) {
      var more = problems.length > 1 ? "; and " + (problems.length - 1) + " more difference(s)" : "";
      return check("page_text", false, problems[0] + more);
    }
    return check("page_text", true, "every number, verdict, name and count on the page is the signed record's, every other text is one of the report's own labels, and the page's frame, title, styles and script are the report's own (page code " + pageCode + ")");
  }

  // -- showing the outcome -------------------------------------------------------------

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function show(checks, supported) {
    var failed = checks.filter(function (c) { return !c.ok; }).map(function (c) { return c.name; });
    var state;
    if (failed.length === 0) state = "true";
    else if (!supported && failed.length === 1 && failed[0] === "signature") state = "unsupported";
    else state = "false";
    var box = document.getElementById("verification");
    var title = document.getElementById("verify-title");
    var summary = document.getElementById("verify-summary");
    var list = document.getElementById("verify-checks");
    var pageCheck = checks.filter(function (c) { return c.name === "page_text"; })[0];
    box.setAttribute("data-state", state);
    var signature = checks.filter(function (c) { return c.name === "signature"; })[0];
    document.getElementById("verify-code").textContent = pageCode === null
      ? "not computed: the page's script could not read itself"
      : pageCode;
    document.getElementById("verify-key").textContent = signingKey === null
      ? "none: no public key is embedded in this page"
      : signingKey + (signature && signature.ok ? "" : " (embedded in this page; the signature was not verified with it)");
    if (state === "true") {
      title.textContent = "Verified";
      summary.textContent = "The signature, the canonical payload, every record id, the hash chain and every text shown on this page check out in this browser" + (tampered ? "." : ", against the public key embedded in this page: compare its full id below with the one the key holder publishes.");
    } else if (state === "unsupported") {
      title.textContent = "Signature not checked: this browser has no Ed25519 in WebCrypto";
      summary.textContent = "Every other check passed. Open this file in a current Chrome, Edge (137+), Firefox (129+) or Safari (17+), or run: respai verify record.json --key public_key.pem";
    } else {
      title.textContent = "Not verified: " + failed.join(", ");
      summary.textContent = tampered
        ? "A value in the embedded record was changed in this browser's memory; the checks named above now fail. Press Reset to restore the signed record."
        : pageCheck && !pageCheck.ok && failed.length === 1
          ? "The text on this page differs from the signed record: " + pageCheck.detail + ". Do not rely on the numbers below."
          : "The record in this page does not match its signature or its hash chain. Do not rely on the numbers below." +
            (pageCheck && !pageCheck.ok ? " The text on this page also differs from the record embedded in it: " + pageCheck.detail + "." : "");
    }
    var chips = document.getElementById("verify-chips");
    list.textContent = "";
    chips.textContent = "";
    checks.forEach(function (c) {
      var li = el("li", c.ok ? "ok" : "bad");
      li.appendChild(el("span", "mark", c.ok ? "\u2713" : "\u2717"));
      li.appendChild(el("code", "", c.name));
      li.appendChild(el("span", "detail", c.detail));
      list.appendChild(li);
      chips.appendChild(el("li", c.ok ? "ok" : "bad", (c.ok ? "\u2713 " : "\u2717 ") + c.name));
    });
    var schema = el("li", "na");
    schema.appendChild(el("span", "mark", "\u2013"));
    schema.appendChild(el("code", "", "schema"));
    schema.appendChild(el("span", "detail", "the JSON Schema check is left to respai verify"));
    list.appendChild(schema);
    chips.appendChild(el("li", "na", "\u2013 schema (respai verify)"));
    document.getElementById("verify-details").open = state === "false";
    root.setAttribute("data-failed", failed.join(","));
    root.setAttribute("data-verified", state);
  }

  var supportedPromise = ed25519Available();

  async function run() {
    root.setAttribute("data-verified", "pending");
    var supported = await supportedPromise;
    var checks;
    try {
      checks = await verify(current, supported);
    } catch (e) {
      checks = [check("envelope", false, "verification stopped: " + e.message)];
    }
    show(checks, supported);
  }

  // -- the tamper demonstration --------------------------------------------------------

  function targetRecord(statement) {
    var records = isObject(statement) && isObject(statement.predicate) && Array.isArray(statement.predicate.records)
      ? statement.predicate.records : [];
    for (var i = 0; i < records.length; i++) {
      var r = records[i];
      if (isObject(r) && r.record_type === "test" && typeof r.value === "number") return r;
    }
    return null;
  }

  function setShown(text, mark) {
    document.querySelectorAll("[data-tamper-target]").forEach(function (node) {
      if (!node.hasAttribute("data-original")) node.setAttribute("data-original", node.textContent);
      node.textContent = text === null ? node.getAttribute("data-original") : text;
      node.classList.toggle("tampered", mark);
    });
  }

  function tamper() {
    var statement = JSON.parse(C.fromUtf8(C.b64decode(original.payload)));
    var record = targetRecord(statement);
    if (!record) return;
    record.value = record.value + 0.05;
    var edited = JSON.parse(JSON.stringify(original));
    edited.payload = C.b64encode(C.utf8(JSON.stringify(statement)));
    current = edited;
    tampered = true;
    setShown(RespaiBind.fixed(record.value), true);
    document.getElementById("tamper-note").textContent =
      "Changed " + testLabel(record) + " to " + RespaiBind.fixed(record.value) + " in the record held in memory (the file on disk is unchanged).";
    document.getElementById("reset").disabled = false;
    document.getElementById("tamper").disabled = true;
    return run();
  }

  function reset() {
    current = original;
    tampered = false;
    setShown(null, false);
    document.getElementById("tamper-note").textContent = "";
    document.getElementById("reset").disabled = true;
    document.getElementById("tamper").disabled = false;
    return run();
  }

  function start() {
    ownedAtLoad = RespaiBind.ownedProblems(); // before anything is written
    document.getElementById("tamper-note").textContent = "";
    var tamperButton = document.getElementById("tamper");
    var resetButton = document.getElementById("reset");
    var canTamper = false;
    try { canTamper = targetRecord(JSON.parse(C.fromUtf8(C.b64decode(original.payload)))) !== null; } catch (e) { canTamper = false; }
    if (tamperButton && resetButton) {
      tamperButton.disabled = !canTamper;
      tamperButton.addEventListener("click", tamper);
      resetButton.addEventListener("click", reset);
    }
    run();
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
