/* respai evidence report: the page's text checked against the signed payload.
   Every text the renderer takes from the record sits in an element with
   data-bind="<JSON Pointer into the Statement>" and data-fmt="<format>"; FORMATS below
   implements every format of respai/render/report/formats.py under the same name (a test
   runs both on the same values). pageProblems() first checks the whole document outside
   <main> against the shell the renderer writes (RespaiTables.shell, from shell.py: the
   <html> attributes, every element of <head> and <body> with its attributes, the CSP
   naming this script's own hash, the style sheet by its hash, the title derived from the
   record; no other element, text or comment anywhere, no id used twice, and the elements
   the script writes holding only the renderer's text when the page was loaded). Then it
   walks <main>: each bound element's text must be its value's format, any other text must
   be one of the renderer's fixed labels (RespaiTables.labels, generated from labels.py),
   and the table of tests and the test sections must hold one row and one section per test
   record, in order, each showing only its own record. Nothing here writes to the page. */
var RespaiBind = (function () {
  "use strict";
  var T = RespaiTables;
  var DASH = "\u2014";
  var LABELS = new Set(T.labels);
  var TICKS = new Set(T.ticks);
  var OWNED = T.scriptOwned;
  var SHELL = T.shell;
  var TAGS = new Set(T.tags);
  var ATTRIBUTES = new Set(T.attributes);
  var SVG = "http://www.w3.org/2000/svg";
  var MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August",
    "September", "October", "November", "December"];
  var UNSAFE = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/gu;
  var SHORT = { "\t": "\\t", "\n": "\\n", "\r": "\\r" };
  var STAMP = /^([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.[0-9]{1,9})?Z$/;

  function has(o, k) { return Object.prototype.hasOwnProperty.call(o, k); }
  function isObject(v) { return v !== null && typeof v === "object" && !Array.isArray(v); }
  function asDict(v) { return isObject(v) ? v : {}; }
  function asList(v) { return Array.isArray(v) ? v : []; }
  function get(o, k) { return isObject(o) && has(o, k) ? o[k] : undefined; }
  function isNumber(v) { return typeof v === "number" && isFinite(v); }
  // an int as Python reads one from canonical JSON: integers beyond 2^53 are read as floats
  function isInt(v) { return typeof v === "number" && Number.isSafeInteger(v); }
  function isStr(v) { return typeof v === "string"; }
  function nonEmpty(o) { return isObject(o) && Object.keys(o).length > 0; }
  function pad(n, w) { var s = String(n); while (s.length < w) s = "0" + s; return s; }

  // -- text and numbers exactly as Python writes them ------------------------------------

  // respai.render.escape.terminal_text: controls, format (bidi) characters, surrogates and
  // line or paragraph separators as \t \n \r \xNN \uNNNN \UNNNNNNNN
  function shown(s) {
    return s.replace(UNSAFE, function (c) {
      if (has(SHORT, c)) return SHORT[c];
      var code = c.codePointAt(0);
      if (code <= 0xff) return "\\x" + pad(code.toString(16), 2);
      if (code <= 0xffff) return "\\u" + pad(code.toString(16), 4);
      return "\\U" + pad(code.toString(16), 8);
    });
  }
  function str(v, fallback) { return isStr(v) && v !== "" ? shown(v) : fallback; }
  function chars(s) { return Array.from(s); }

  // the exact decimal digits of a finite x >= 0: value = 0.D x 10^E, D without leading or
  // trailing zeros (toPrecision(100) is exact for every double a tie can come from)
  function decimal(x) {
    if (x === 0) return { d: "", e: 0 };
    var m = /^(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(x.toPrecision(100));
    var digits = m[1] + (m[2] || ""), e = m[1].length + (m[3] ? parseInt(m[3], 10) : 0);
    var lead = /^0*/.exec(digits)[0].length;
    return { d: digits.slice(lead).replace(/0+$/, ""), e: e - lead };
  }
  // keep the first `keep` digits, rounding half to even (as Python's format does)
  function roundAt(dec, keep) {
    var d = dec.d, e = dec.e;
    if (keep >= d.length) return dec;
    if (keep < 0) return { d: "", e: e };
    var head = d.slice(0, keep), rest = d.slice(keep);
    var last = head.length ? parseInt(head[head.length - 1], 10) : 0;
    var up = rest[0] > "5" || (rest[0] === "5" && (rest.length > 1 || last % 2 === 1));
    if (up) {
      var digits = head.split(""), i = digits.length - 1;
      while (i >= 0 && digits[i] === "9") { digits[i] = "0"; i--; }
      if (i < 0) { digits.unshift("1"); e += 1; } else digits[i] = String(parseInt(digits[i], 10) + 1);
      head = digits.join("");
    }
    return { d: head.replace(/0+$/, ""), e: e };
  }
  function place(dec, n) {
    var d = dec.d, e = dec.e, whole, frac;
    if (e >= 0) {
      whole = (d + "0".repeat(Math.max(0, e - d.length))).slice(0, e) || "0";
      frac = d.slice(e);
    } else {
      whole = "0";
      frac = "0".repeat(-e) + d;
    }
    frac = (frac + "0".repeat(n)).slice(0, n);
    whole = whole.replace(/^0+(?=\d)/, "");
    return n > 0 ? whole + "." + frac : whole;
  }
  function sign(x) { return x < 0 || Object.is(x, -0) ? "-" : ""; }
  // f"{x:.nf}"
  function fixedText(x, n) {
    var dec = decimal(Math.abs(x));
    return sign(x) + place(roundAt(dec, dec.e + n), n);
  }
  // f"{x:.pg}"
  function gText(x, p) {
    var a = Math.abs(x);
    if (a === 0) return sign(x) + "0";
    var r = roundAt(decimal(a), p), exp = r.e - 1;
    if (exp >= -4 && exp < p) {
      var s = place(r, Math.max(p - 1 - exp, 0));
      if (s.indexOf(".") >= 0) s = s.replace(/0+$/, "").replace(/\.$/, "");
      return sign(x) + s;
    }
    var digits = (r.d + "0".repeat(p)).slice(0, p);
    var mant = (digits[0] + "." + digits.slice(1)).replace(/0+$/, "").replace(/\.$/, "");
    var ex = Math.abs(exp);
    return sign(x) + mant + "e" + (exp < 0 ? "-" : "+") + (ex < 10 ? "0" : "") + ex;
  }
  function fixed(v, n) { return isNumber(v) ? fixedText(v, n === undefined ? 4 : n) : DASH; }
  function plain(v) { return isNumber(v) ? String(v) : isStr(v) ? shown(v) : DASH; }
  function grouped(n) {
    return (n < 0 ? "-" : "") + String(Math.abs(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  }
  function count(v) { return isInt(v) ? grouped(v) : DASH; }
  function significant(v) { return isNumber(v) ? gText(v, 4) : DASH; }
  function percent(v) { return isNumber(v) ? gText(v * 100, 4) + "%" : ""; }
  function intervalText(iv) {
    var d = asDict(iv);
    if (!(isNumber(d.lo) && isNumber(d.hi))) return DASH;
    return "[" + fixed(d.lo) + ", " + fixed(d.hi) + "]";
  }
  function size(v) {
    if (!isInt(v)) return "";
    if (v >= 1000000) return fixedText(v / 1000000, 1) + " MB";
    if (v >= 1000) return fixedText(v / 1000, 1) + " kB";
    return v + " bytes";
  }
  function daysIn(y, m) { return [31, (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1]; }
  function when(v) {
    if (!isStr(v)) return DASH;
    var m = STAMP.exec(v);
    if (!m) return shown(v);
    var y = +m[1], mo = +m[2], d = +m[3], h = +m[4], mi = +m[5], s = +m[6];
    if (y < 1 || mo < 1 || mo > 12 || d < 1 || d > daysIn(y, mo) || h > 23 || mi > 59 || s > 59) return shown(v);
    return d + " " + MONTHS[mo - 1] + " " + pad(y, 4) + ", " + pad(h, 2) + ":" + pad(mi, 2) + ":" + pad(s, 2) + " UTC";
  }
  function operators(t) { return t.split(">=").join("\u2265").split("<=").join("\u2264"); }
  function thresholdText(th) {
    var t = asDict(th);
    var comparison = isStr(t.comparison) ? shown(t.comparison) : "";
    var keys = ["value", "max_group_gap", "min_group_ratio", "worst_group_min", "worst_group_max"];
    for (var i = 0; i < keys.length; i++) {
      if (isNumber(get(t, keys[i]))) return (operators(comparison) + " " + plain(t[keys[i]])).trim();
    }
    return operators(comparison) || DASH;
  }
  function items(v) {
    return asList(v).map(function (g) { return isStr(g) ? shown(g) : "?"; }).join(" \u00d7 ");
  }
  function tests(records) {
    return asList(records).filter(function (r) { return asDict(r).record_type === "test"; });
  }
  function titleCase(t) {
    return t.length && t.charCodeAt(0) < 128 ? t[0].toUpperCase() + t.slice(1) : t;
  }
  function level(groups, key, fallback) {
    var lv = null;
    asList(groups).forEach(function (g) {
      var iv = asDict(get(asDict(g), key));
      if (has(iv, "confidence")) lv = iv.confidence;
    });
    return percent(lv) || fallback;
  }
  function spreadLimit(rec) {
    var r = asDict(rec), details = asDict(r.details);
    var rates = asList(details.groups).map(asDict).filter(function (g) { return isNumber(g.rate); })
      .map(function (g) { return g.rate; });
    var th = asDict(r.threshold), t = th.value, comparison = th.comparison;
    if (!rates.length || !isNumber(t)) return null;
    var top = Math.max.apply(null, rates);
    if (r.test_id === T.testIds.impactRatio && comparison === ">=") {
      return [plain(t) + " \u00d7 highest = " + fixedText(top * t, 4),
        " The dashed line is " + plain(t) + " times the highest rate: the impact ratio meets its threshold when the lowest group is at or to the right of it.",
        top * t];
    }
    if (comparison === "<=" && top - t >= 0) {
      return ["highest \u2212 " + plain(t) + " = " + fixedText(top - t, 4),
        " The dashed line is the highest rate minus " + plain(t) + ": the difference meets its threshold when the lowest group is at or to the right of it.",
        top - t];
    }
    return null;
  }
  function ruleThreshold(r) {
    var fromDetails = asDict(asDict(r.details).threshold);
    return nonEmpty(fromDetails) ? fromDetails : asDict(r.threshold);
  }
  function ruleLimitOf(rec) {
    var th = ruleThreshold(asDict(rec)), found = null;
    [["worst_group_max", "maximum"], ["worst_group_min", "minimum"]].forEach(function (kw) {
      if (isNumber(get(th, kw[0]))) found = [kw[1] + " " + plain(th[kw[0]]), th[kw[0]]];
    });
    return found;
  }
  function ruleLimit(rec) { var found = ruleLimitOf(rec); return found ? found[0] : ""; }
  function rateWords(v) { return str(v, "rate").split("_").join(" "); }


  // -- a monitoring run (respai/render/report/formats.py, the mon_ formats) ---------------
  function ints(v) { return asList(v).filter(isInt); }
  function span(looks) {
    if (!looks.length) return "?";
    var first = Math.min.apply(null, looks), last = Math.max.apply(null, looks);
    return first === last ? String(first) : first + "\u2013" + last;
  }
  function monLimit(v) {
    var t = asDict(asDict(v).threshold), c = t.comparison;
    var words = { worst_max: "maximum", worst_min: "minimum", max_group_gap: "max_group_gap" };
    var word = isStr(c) && has(words, c) ? words[c] : "limit";
    return word + " " + plain(t.value);
  }
  function alarmNote(r) {
    var look = asDict(asDict(asDict(r).details).change).alarm_look;
    if (!isInt(look)) return " No change detector has raised its alarm.";
    return " The vertical line marks look " + look + ", where a change detector raised its alarm: the rule reads FAIL from that look on.";
  }

  // -- a group's rates from its signed counts (respai/render/report/group_rates.py) -------

  var GT = T.groupTable;
  // -NormalDist().inv_cdf((1 - 0.95) / 2) as Python computes it in stats.wilson_interval
  // (a test requires this literal to be that double)
  var WILSON_Z95 = 1.9599639845400536;
  // the six counts of one group of predicate.counts.groupings, or null unless each is an
  // integer from 0 and the group's total is one JavaScript reads exactly
  function groupCounts(v) {
    var g = asDict(v), out = {}, total = 0;
    for (var i = 0; i < GT.counts.length; i++) {
      var c = get(g, GT.counts[i]);
      if (!isInt(c) || c < 0) return null;
      out[GT.counts[i]] = c;
      total += c;
    }
    return Number.isSafeInteger(total) ? out : null;
  }
  function termSum(terms, counts) {
    var sum = 0;
    Object.keys(terms).forEach(function (k) { sum += terms[k] * counts[k]; });
    return sum;
  }
  function tableColumn(a) {
    for (var i = 0; i < GT.columns.length; i++) if (GT.columns[i][0] === a) return GT.columns[i];
    return null;
  }
  function tableRate(a) {
    for (var i = 0; i < GT.rates.length; i++) if (GT.rates[i][0] === a) return GT.rates[i];
    return null;
  }
  // respai.stats.wilson_interval at 95%, the same IEEE operations in the same order
  function wilson(k, n) {
    var crit = WILSON_Z95, crit2 = crit * crit, q = k / n;
    var denom = 1.0 + crit2 / n;
    var center = (q + crit2 / (2.0 * n)) / denom;
    var dist = crit * Math.sqrt(q * (1.0 - q) / n + crit2 / (4.0 * n * n)) / denom;
    var lo = k === 0 ? 0.0 : Math.min(Math.max(center - dist, 0.0), 1.0);
    var hi = k === n ? 1.0 : Math.min(Math.max(center + dist, 0.0), 1.0);
    return [lo, hi];
  }

  // -- the formats (respai/render/report/formats.py, name for name) ----------------------

  var FORMATS = {
    text: function (v) { return str(v, DASH); },
    text0: function (v) { return str(v, ""); },
    textq: function (v) { return str(v, "?"); },
    name: function (v) { return str(v, "unnamed system"); },
    short: function (v) {
      var c = chars(str(v, "?"));
      return c.length <= 30 ? c.join("") : c.slice(0, 29).join("") + "\u2026";
    },
    number: function (v, a) { return fixed(v, ["1", "2", "3", "4"].indexOf(a) >= 0 ? +a : 4); },
    plain: plain,
    count: count,
    when: when,
    hash: function (v) { return "sha256:" + (isStr(v) ? shown(v) : DASH); },
    short_hash: function (v) {
      if (!isStr(v)) return "";
      var body = v.indexOf("sha256:") === 0 ? v.slice(7) : v, c = chars(body);
      return shown(c.length > 16 ? "sha256:" + c.slice(0, 16).join("") + "\u2026" : v);
    },
    threshold: thresholdText,
    verdict: function (v) { return isStr(v) ? (has(T.verdictWords, v) ? T.verdictWords[v] : shown(v)) : DASH; },
    verdict_sentence: function (v) {
      return isStr(v) && has(T.verdictSentences, v) ? T.verdictSentences[v] : "The record's verdict is not one of the four.";
    },
    verdict_count: function (v, a) {
      var verdict = isStr(a) && has(T.verdictWords, a) ? a : "PASS";
      var n = tests(v).filter(function (t) { return asDict(t).verdict === verdict; }).length;
      return n + " " + T.verdictWords[verdict];
    },
    test_count: function (v) { return String(tests(v).length); },
    test_number: function (v, a) {
      var list = asList(v), i = isStr(a) && /^[0-9]{1,9}$/.test(a) ? parseInt(a, 10) : -1;
      if (i < 0 || i >= list.length || asDict(list[i]).record_type !== "test") return "?";
      return String(tests(list.slice(0, i)).length + 1);
    },
    test_name: function (v) { return isStr(v) ? (has(T.testNames, v) ? T.testNames[v] : shown(v)) : "test"; },
    sub: function (v) {
      var r = asDict(v);
      if (r.test_id === T.testIds.groupRule) {
        return isStr(r.test_key) ? shown(r.test_key.indexOf("rule:") === 0 ? r.test_key.slice(5) : r.test_key) : "";
      }
      return items(r.grouping);
    },
    uncertain_flag: function (v) { return v === true ? "uncertain" : ""; },
    uncertain_note: function (v) {
      var r = asDict(v);
      if (!has(r, "uncertain")) return "not applicable: a group rule is decided from its intervals";
      if (r.uncertain === true) return "uncertain: the interval crosses the threshold";
      if (nonEmpty(r.interval)) return "no: the interval lies on one side of the threshold";
      return "no: there is no interval";
    },
    interval_cell: function (v) {
      var r = asDict(v);
      if (r.interval !== null && r.interval !== undefined) return intervalText(r.interval);
      var b = asDict(asDict(r.details).gap_bounds);
      if (isNumber(b.lo) && isNumber(b.hi)) return "gap in [" + fixed(Math.max(b.lo, 0)) + ", " + fixed(b.hi) + "]";
      return DASH;
    },
    interval_note: function (v) {
      var r = asDict(v), iv = asDict(r.interval);
      if (nonEmpty(iv)) {
        var method = isStr(iv.method) ? shown(iv.method) : "";
        return method + (isNumber(iv.confidence) ? ", " + percent(iv.confidence) : "");
      }
      if (nonEmpty(asDict(r.details).gap_bounds)) return "bounds on the largest gap";
      return "";
    },
    decision: function (v) { return isStr(v) && v !== "" ? "decided on the " + shown(v) : ""; },
    cases: function (v) {
      var p = asDict(v), cases = asDict(p.counts).cases;
      var bytes = asDict(asDict(p.fingerprints).dataset).size_bytes;
      return [isInt(cases) ? count(cases) : "", size(bytes)].filter(Boolean).join(" \u00b7 ") || DASH;
    },
    engine: function (v) {
      var e = asDict(v);
      return str(e.name, "?") + " " + str(e.version, "") + (isStr(e.python) ? ", Python " + shown(e.python) : "");
    },
    run_identity: function (v) {
      var p = asDict(v);
      return "run " + str(p.run_id, DASH) + " at " + str(p.timestamp, DASH) + ", schema_version " + str(p.schema_version, "?");
    },
    dataset_line: function (v) {
      var d = asDict(v);
      return str(d.name, DASH) + " \u00b7 " + (isStr(d.media_type) ? shown(d.media_type) : "") + " \u00b7 " + size(d.size_bytes);
    },
    dirty: function (v) { return asDict(v).git_dirty === true ? " (uncommitted changes)" : ""; },
    items: items,
    rate_name: function (v) { return str(v, DASH).split("_").join(" "); },
    error_budget: function (v) {
      var d = asDict(v);
      return "alpha " + plain(d.alpha) + ", " + significant(d.alpha_per_group) + " per group";
    },
    left_out: function (v) {
      var d = asDict(v), reasons = asDict(d.by_reason), keys = Object.keys(reasons);
      return count(d.total) + " case(s)" +
        (isNumber(d.share) ? " (" + fixedText(d.share * 100, 1) + "% of the file)" : "") +
        (keys.length ? ": " + keys.map(function (k) { return shown(k) + ": " + count(reasons[k]); }).join("; ") : "");
    },
    small_cells: function (v) {
      return asList(v).map(function (c) {
        var d = asDict(c);
        return str(d.group, "?") + " (" + count(d.with_prediction) + " with a prediction)";
      }).join(", ");
    },
    length: function (v) { return String(asList(v).length); },
    drawn: function (v, a) {
      var k = drawnEach(a) === null ? "?" : a;
      return "With " + grouped(asList(v).length) + " groups, the chart draws only the " + k +
        " with the lowest and the " + k + " with the highest value (a group without a value is " +
        "not drawn); the signed record holds every group.";
    },
    interval: intervalText,
    table_count: function (v, a) {
      var column = tableColumn(a), counts = groupCounts(v);
      if (column === null) return "?";
      return counts === null ? DASH : grouped(termSum(column[2], counts));
    },
    table_rate: function (v, a) {
      var rate = tableRate(a), counts = groupCounts(v);
      if (rate === null) return "?";
      if (counts === null) return DASH;
      var k = termSum(rate[2], counts), n = termSum(rate[3], counts);
      if (n === 0) return "undefined: no " + rate[4];
      var iv = wilson(k, n);
      return fixedText(k / n, 3) + " " + k + "/" + n + " [" + fixedText(iv[0], 3) + ", " + fixedText(iv[1], 3) + "]";
    },
    listed: function (v, a) {
      var k = drawnEach(a) === null ? "?" : a;
      return "With " + grouped(asList(v).length) + " groups, the table lists only the " + k +
        " with the fewest and the " + k + " with the most cases; the signed record holds every group.";
    },
    framework: function (v) { return isStr(v) ? (has(T.frameworkNames, v) ? T.frameworkNames[v] : shown(v)) : "?"; },
    n_over_d: function (v) { var g = asDict(v); return count(g.numerator) + " / " + count(g.denominator); },
    rule_note: function (v) {
      var g = asDict(v), note = count(g.events) + " / " + count(g.with_prediction);
      if (isInt(g.missing_prediction) && g.missing_prediction) note += " \u00b7 " + grouped(g.missing_prediction) + " no pred.";
      if (g.small_cell === true) note += " \u00b7 small cell";
      return note;
    },
    pos_neg: function (v) { var g = asDict(v); return count(g.positives) + " pos. / " + count(g.negatives) + " neg."; },
    spread_title: function (v) { var r = asDict(v); return str(asDict(r.details).rate, "rate") + " by " + items(r.grouping); },
    spread_caption: function (v) {
      var r = asDict(v), found = spreadLimit(r);
      return titleCase(str(asDict(r.details).rate, "rate")) + " by " + items(r.grouping) +
        ", over cases with a prediction. Numbers on the right: the rate, then cases counted / cases it is over." +
        (found ? found[1] : "");
    },
    spread_limit: function (v) { var found = spreadLimit(v); return found ? found[0] : ""; },
    spread_level: function (v) { return level(asDict(v).groups, "interval_simultaneous", "simultaneous"); },
    rule_title: function (v) { var r = asDict(v); return rateWords(asDict(r.details).rate) + " rate by " + items(r.grouping); },
    rule_caption: function (v) {
      var r = asDict(v), details = asDict(r.details), th = ruleThreshold(r), b = asDict(details.gap_bounds), gap = "";
      if (isNumber(b.lo) && isNumber(b.hi)) {
        gap = " The largest gap between two groups lies between " + fixed(Math.max(b.lo, 0)) + " and " + fixed(b.hi) +
          (isNumber(get(th, "max_group_gap")) ? "; the rule allows " + plain(th.max_group_gap) + "." : ".");
      }
      return titleCase(rateWords(details.rate)) + " rate by " + items(r.grouping) +
        ". Bars: Clopper-Pearson intervals at " + level(details.groups, "interval", "Clopper-Pearson") +
        " each (Bonferroni over the groups), with cases without a prediction counted at their worst. " +
        "Numbers on the right: the rate, then events / cases with a prediction." + gap;
    },
    rule_limit: ruleLimit,
    rule_level: function (v) { return level(asDict(v).groups, "interval", "Clopper-Pearson"); },
    auc_title: function (v) { return "AUC by " + str(v, "?"); },
    auc_caption: function (v) { return T.aucCaption[0] + str(v, "?") + T.aucCaption[1]; },
    auc_limit: function (v) { return isNumber(v) ? "threshold " + plain(v) : ""; },

    mon_scope: function (v) {
      var looks = ints(asDict(v).new_looks);
      var latest = looks.length ? String(Math.max.apply(null, looks)) : "?";
      return "The stream's verdict is its latest look's (look " + latest + "): the worst verdict over its rules at that look.";
    },
    mon_guarantee: function (v) {
      var m = asDict(v), level = isNumber(m.alpha) ? percent(1 - m.alpha) : "?";
      return "Each group's interval is a confidence sequence (" + str(m.interval_method, "?") +
        ") that holds at every look at once with at least " + (level || "?") +
        " confidence (Bonferroni over a rule's groups); each rule's change detector (" +
        str(m.change_method, "?") + "): " + str(m.change_guarantee, "?") + ".";
    },
    mon_looks: function (v) {
      var m = asDict(v), looks = ints(m.new_looks), earlier = m.earlier_looks;
      var text = "This run holds look(s) " + span(looks) + " of the stream";
      if (isInt(earlier) && earlier > 0) {
        if (asList(m.history).length) return text + "; look(s) " + span([1, earlier]) + " are from earlier runs of it in the ledger, drawn here from the copies of their records this run holds.";
        return text + "; look(s) " + span([1, earlier]) + " are in earlier runs of it in the ledger.";
      }
      return text + ", from its first batch.";
    },
    mon_from: function (v) { return "from earlier run " + str(v, "?"); },
    rate_iv: function (v) {
      var g = asDict(v);
      return isNumber(g.rate) ? fixed(g.rate) + " " + intervalText(g.interval) : "undefined";
    },
    mon_counts: function (v) {
      var g = asDict(v), decided = isInt(g.cases) && isInt(g.missing) ? g.cases - g.missing : null;
      var text = count(g.events) + " / " + count(decided);
      if (isInt(g.missing) && g.missing) text += " \u00b7 " + grouped(g.missing) + " no pred.";
      return text;
    },
    mon_change: function (v) {
      var c = asDict(v);
      return asList(c.detectors).map(asDict).map(function (d) {
        return str(d.detector, "?") + " " + (isNumber(d.statistic) ? significant(d.statistic) : "undefined") +
          (d.alarm === true ? " ALARM" : "");
      }).join("; ") + " (alarm at " + significant(c.threshold) + ")";
    },
    mon_limit: monLimit,
    mon_alarm: function (v) {
      var look = asDict(v).alarm_look;
      return isInt(look) ? "change detected at look " + look : "";
    },
    mon_title: function (v) {
      var d = asDict(asDict(v).details);
      return str(d.rate, DASH).split("_").join(" ") + " rate by look \u00b7 rule " + str(d.rule, "?");
    },
    gap_title: function (v) {
      return "largest gap between groups by look \u00b7 rule " + str(asDict(asDict(v).details).rule, "?");
    },
    mon_caption: function (v) {
      var r = asDict(v), d = asDict(r.details), t = asDict(r.threshold);
      var limit = t.comparison === "worst_max" || t.comparison === "worst_min"
        ? " The dashed line is the rule's " + monLimit(r) + "."
        : " The rule limits the gap between groups (the next chart), not a rate.";
      var lv = level(d.groups, "interval", "?");
      return titleCase(str(d.rate, DASH).split("_").join(" ")) + " rate of each group at each look. " +
        "Dots: each batch's own rate, with its one-off Clopper-Pearson interval at " + lv +
        " (bars). Bands: the cumulative rate's confidence sequence at " + lv +
        ", which holds at every look at once; cases without a prediction are counted at their worst." +
        limit + alarmNote(r);
    },
    gap_caption: function (v) {
      var r = asDict(v);
      return "The band holds the largest gap between two groups' cumulative rates at each look, " +
        "from the groups' confidence sequences (a lower bound below 0 is drawn at the axis). " +
        "The dashed line is the rule's " + monLimit(r) + ": FAIL once the band lies wholly above it, " +
        "PASS once wholly at or below it." + alarmNote(r);
    },
  };

  function format(name, value, arg) {
    if (!has(FORMATS, name)) throw new Error("no format " + JSON.stringify(name));
    return FORMATS[name](value, arg === null ? undefined : arg);
  }

  // -- reading the payload ---------------------------------------------------------------

  // RFC 6901; a missing member, an index past the end or a step into a scalar is undefined
  function resolve(root, ptr) {
    if (ptr === "") return { found: true, value: root };
    if (ptr[0] !== "/") return { found: false };
    var node = root, parts = ptr.slice(1).split("/");
    for (var i = 0; i < parts.length; i++) {
      var key = parts[i].replace(/~1/g, "/").replace(/~0/g, "~");
      if (Array.isArray(node)) {
        if (!/^(0|[1-9][0-9]*)$/.test(key) || +key >= node.length) return { found: false, value: undefined, key: key };
        node = node[+key];
      } else if (isObject(node) && has(node, key)) {
        node = node[key];
      } else {
        return { found: false, value: undefined, key: key };
      }
      if (i === parts.length - 1) return { found: true, value: node, key: key };
    }
    return { found: true, value: node };
  }


  // -- the document outside <main> (respai/render/report/shell.py) ------------------------

  // the title the renderer derives from the record (shell.page_title)
  function pageTitle(statement) {
    var system = asDict(asDict(asDict(statement).predicate).system);
    var name = isStr(system.name) ? shown(system.name) : "record";
    var version = isStr(system.version) ? shown(system.version) : "";
    return (name + " " + version).trim() + SHELL.titleSuffix;
  }

  function elementsOf(node) {
    return Array.prototype.filter.call(node.childNodes, function (c) { return c.nodeType === 1; });
  }
  function describe(el) {
    var tag = el.tagName.toLowerCase(), named = "";
    if (el.id) named = ' id="' + shown(el.id) + '"';
    else if (tag === "meta" && el.hasAttribute("http-equiv")) named = ' http-equiv="' + shown(el.getAttribute("http-equiv")) + '"';
    else if (tag === "meta" && el.hasAttribute("name")) named = ' name="' + shown(el.getAttribute("name")) + '"';
    return "<" + tag + named + ">";
  }
  // the attributes an element must have, exactly and in order (the slot is `fill`)
  function attributeProblems(el, wanted, fill, problems) {
    var have = Array.prototype.map.call(el.attributes, function (a) { return [a.name.toLowerCase(), a.value]; });
    var want = wanted.map(function (a) { return [a[0], a[1] === SHELL.cspSlot ? fill : a[1]]; });
    for (var i = 0; i < Math.max(have.length, want.length); i++) {
      var h = have[i], w = want[i];
      if (h && w && h[0] === w[0] && h[1] === w[1]) continue;
      problems.push("the page's " + describe(el) + (h ? " has " + h[0] + "=" + quote(h[1]) : " lacks " + w[0]) +
        " where the report writes " + (w ? w[0] + "=" + quote(w[1]) : "nothing"));
      return;
    }
  }
  // the element children of `parent` are `wanted` ([tag, attributes] each), in order, with
  // nothing but white space between them
  function childrenProblems(parent, wanted, fill, problems, contents) {
    Array.prototype.forEach.call(parent.childNodes, function (c) {
      if (c.nodeType === 3 && c.nodeValue.trim() !== "") {
        problems.push("the page shows " + quote(c.nodeValue.trim()) + " outside <main>, which is neither from the signed record nor one of the report's labels");
      }
    });
    var have = elementsOf(parent);
    have.forEach(function (el, i) {
      var want = wanted[i];
      if (!want || el.tagName.toLowerCase() !== want[0] || el.namespaceURI !== "http://www.w3.org/1999/xhtml") {
        problems.push("the page holds " + describe(el) + " in its <" + parent.tagName.toLowerCase() + "> where the report writes " + (want ? "<" + want[0] + ">" : "nothing"));
        return;
      }
      attributeProblems(el, want[1], fill, problems);
      if (contents) contents(el, i);
    });
    if (have.length < wanted.length) {
      problems.push("the page's <" + parent.tagName.toLowerCase() + "> lacks the <" + wanted[have.length][0] + "> the report writes");
    }
  }

  /* The parts of the verification box the script writes, as the file holds them before the
     script writes anything: each id once, at its place in the box, with the renderer's text
     and nothing else. Called once when the page is loaded. */
  function ownedProblems() {
    var problems = [];
    Object.keys(OWNED).forEach(function (id) {
      var tag = OWNED[id][0], text = OWNED[id][1];
      var all = document.querySelectorAll('[id="' + id + '"]');
      if (all.length !== 1) {
        problems.push("the page has " + all.length + " elements with the id " + quote(id) + ", a part of the page its script writes");
        return;
      }
      var el = all[0], box = el.parentNode && el.parentNode.closest("section#verification");
      if (el.tagName.toLowerCase() !== tag || !box || box.parentNode !== document.querySelector("main")) {
        problems.push("the page moved " + describe(el) + ", a part its script writes, out of its place in the verification box");
      }
      var nodes = el.childNodes;
      var same = text === "" ? nodes.length === 0
        : nodes.length === 1 && nodes[0].nodeType === 3 && nodes[0].nodeValue === text;
      if (!same) problems.push("the page holds content of its own in " + describe(el) + ", a part its script writes");
    });
    return problems;
  }

  /* Everything outside <main>. `page`: { script: the running script element, scriptHash:
     its CSP hash ('sha256-…'), styleHashes: Map of each <style> element to its CSP hash,
     owned: ownedProblems() from when the page was loaded }. */
  function shellProblems(statement, page) {
    var problems = page.owned.slice();
    var doc = document, html = doc.documentElement;
    var kinds = Array.prototype.map.call(doc.childNodes, function (n) { return n.nodeType; });
    if (!doc.doctype || doc.doctype.name !== "html" || doc.compatMode !== "CSS1Compat" ||
        kinds.length !== 2 || kinds[0] !== 10 || kinds[1] !== 1) {
      problems.push("the page is not the document the report writes (<!DOCTYPE html>, then <html>)");
    }
    attributeProblems(html, SHELL.html.map(function (a) {
      return [a[0], a[0] === "lang" ? a[1] : html.getAttribute(a[0])];
    }), null, problems);
    childrenProblems(html, [["head", []], ["body", []]], null, problems);
    var csp = SHELL.csp.split(SHELL.cspSlot).join(page.scriptHash);
    if (doc.head) {
      childrenProblems(doc.head, SHELL.head, csp, problems, function (el) {
        var tag = el.tagName.toLowerCase();
        if (tag === "title" && el.textContent !== pageTitle(statement)) {
          problems.push("the page's title is " + quote(el.textContent) + " but the signed record gives " + quote(pageTitle(statement)));
        }
        if (tag === "style" && page.styleHashes.get(el) !== SHELL.styleSha256) {
          problems.push("the page's style sheet is not the report's own (its SHA-256 differs), so what it shows cannot be checked");
        }
      });
    }
    if (doc.body) {
      var scripts = elementsOf(doc.body);
      childrenProblems(doc.body, SHELL.body, null, problems);
      if (scripts[scripts.length - 1] !== page.script) problems.push("the script checking this page is not the page's last element");
    }
    if (doc.querySelectorAll("main").length !== 1) problems.push("the page has " + doc.querySelectorAll("main").length + " <main> elements; the report writes one");
    var ids = {};
    Array.prototype.forEach.call(doc.querySelectorAll("[id]"), function (el) {
      if (has(ids, el.id)) problems.push("the page has two elements with the id " + quote(el.id));
      ids[el.id] = true;
    });
    var comments = doc.createTreeWalker(doc, NodeFilter.SHOW_COMMENT);
    if (comments.nextNode()) problems.push("the page holds a comment, which the report never writes");
    return problems;
  }

  // -- checking the page -----------------------------------------------------------------

  function quote(s) {
    var c = chars(s);
    return "\u201c" + (c.length > 80 ? c.slice(0, 79).join("") + "\u2026" : c.join("")) + "\u201d";
  }
  function verdictClass(v) { return isStr(v) && has(T.verdictWords, v) ? "v-" + v : "v-unknown"; }
  function vClasses(el) {
    return Array.prototype.filter.call(el.classList, function (c) { return c.indexOf("v-") === 0; });
  }

  /* Check the document's shell (shellProblems, with `page` as it describes), then every
     text in <main> against the statement; `where(pointer)` names a place ("seq 3, Impact
     ratio (impact_ratio:sex), verdict"). Returns the problems, in page order. */
  function pageProblems(statement, where, page) {
    var main = document.querySelector("main"), problems = shellProblems(statement, page), bound = [];
    if (!main) return problems.concat(["the page has no <main>"]);
    function checkBound(el) {
      var ptr = el.getAttribute("data-bind"), fmt = el.getAttribute("data-fmt");
      var arg = el.hasAttribute("data-arg") ? el.getAttribute("data-arg") : null;
      var at = resolve(statement, ptr), value = at.value;
      if (el.getAttribute("data-of") === "key") {
        if (!at.found) { problems.push("the page shows the name " + quote(el.textContent) + " at " + where(ptr) + ", which the signed record does not have"); return; }
        value = at.key;
      }
      var expected;
      try { expected = format(fmt, value, arg); } catch (e) {
        problems.push("the page shows " + quote(el.textContent) + " with an unknown format " + JSON.stringify(fmt)); return;
      }
      bound.push({ el: el, ptr: ptr, fmt: fmt, arg: arg });
      if (el.textContent !== expected) {
        problems.push("the page shows " + quote(el.textContent) + " for " + where(ptr) + " but the signed record says " + quote(expected));
        return;
      }
      var colour = fmt === "verdict" ? verdictClass(value) : fmt === "verdict_count" ? verdictClass(arg) : null;
      if (colour !== null && vClasses(el).length && vClasses(el).join(" ") !== colour) {
        problems.push("the page colours " + quote(expected) + " (" + where(ptr) + ") as " + vClasses(el).join(" ") + ", not " + colour);
      }
      if (expected !== "" && el.tagName.toLowerCase() !== "title" && typeof el.checkVisibility === "function" &&
          !el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true })) {
        problems.push("the page hides " + quote(expected) + " (" + where(ptr) + ")");
      }
      // inside a bound element the renderer writes only its text (the first word in <b>)
      Array.prototype.forEach.call(el.querySelectorAll("*"), function (inner) {
        var own = inner.tagName.toLowerCase();
        if (own !== "b" || inner.attributes.length || inner.children.length || inner.parentNode !== el) {
          problems.push("the page puts <" + own + "> inside the text of " + where(ptr) + ", where the report writes only the text");
        }
      });
      if (Array.prototype.some.call(el.childNodes, function (n) { return n.nodeType !== 1 && n.nodeType !== 3; })) {
        problems.push("the page puts something other than text inside " + where(ptr));
      }
      if (el.namespaceURI === SVG && el.tagName.toLowerCase() === "text" && !insideItsChart(el)) {
        problems.push("the page draws " + quote(expected) + " (" + where(ptr) + ") outside its chart");
      }
    }
    function checkElement(el, tag) {
      Array.prototype.forEach.call(el.attributes, function (a) {
        var name = a.name.toLowerCase();
        if (!ATTRIBUTES.has(name)) problems.push("the page gives a <" + tag + "> the attribute " + name + ", which the report never writes");
        else if (name === "href" && a.value.charAt(0) !== "#") problems.push("the page links to " + quote(a.value) + ", which the report never does");
      });
    }
    function walk(node) {
      for (var child = node.firstChild; child; child = child.nextSibling) {
        if (child.nodeType === 3) {
          var text = child.nodeValue;
          var parent = child.parentNode;
          if (text.trim() === "") continue;
          if (LABELS.has(text) || (TICKS.has(text) && parent.namespaceURI === SVG && parent.classList.contains("tick"))) {
            if (parent.namespaceURI !== SVG && typeof parent.checkVisibility === "function" && !parent.closest(".print-only, .banner > .label") &&
                !parent.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true })) {
              problems.push("the page hides its text " + quote(text));
            }
            continue;
          }
          problems.push("the page shows " + quote(text) + ", which is neither from the signed record nor one of the report's labels");
        } else if (child.nodeType === 1) {
          var tag = child.tagName.toLowerCase();
          if (tag === "noscript" || has(OWNED, child.id)) continue;
          if (child.namespaceURI !== SVG && !TAGS.has(tag)) {
            problems.push("the page holds a <" + tag + "> element the report never writes");
            continue;
          }
          checkElement(child, tag);
          if (child.hasAttribute("data-bind")) checkBound(child);
          else walk(child);
        }
      }
    }
    walk(main);
    Array.prototype.forEach.call(main.querySelectorAll("svg"), function (svg) {
      if (isLegendKey(svg)) legendProblems(svg, problems);
      else if (isChart(svg)) chartProblems(svg, statement, where, problems);
      else problems.push("the page draws an <svg> where the report draws none (only a chart and its legend keys)");
    });
    var predicate = asDict(asDict(statement).predicate);
    var banner = document.getElementById("verdict");
    if (banner && banner.closest("main") === main && vClasses(banner).join(" ") !== verdictClass(predicate.verdict)) {
      problems.push("the page colours the run's verdict as " + (vClasses(banner).join(" ") || "none") + " but the signed record says " + quote(FORMATS.verdict(predicate.verdict)));
    }
    verdictPlaceProblems(main, where, problems);
    placementProblems(main, problems);
    var records = asList(predicate.records), wanted = [];
    records.forEach(function (r, i) { if (asDict(r).record_type === "test") wanted.push(i); });
    [["table.tests tbody tr", "row of the tests table", "row(s) in the tests table"], ["section.test-section", "test section", "test section(s)"]].forEach(function (kind) {
      var shownParts = main.querySelectorAll(kind[0]);
      if (shownParts.length !== wanted.length) {
        problems.push("the page shows " + shownParts.length + " " + kind[2] + " but the signed record has " + wanted.length + " test(s)");
      }
      Array.prototype.forEach.call(shownParts, function (part, k) {
        if (k >= wanted.length) return;
        var own = "/predicate/records/" + wanted[k], sawVerdict = false;
        if (part.getAttribute("data-record") !== own) {
          problems.push("the " + kind[1] + " at position " + (k + 1) + " is not " + where(own));
          return;
        }
        part.querySelectorAll("[data-bind]").forEach(function (el) {
          var ptr = el.getAttribute("data-bind"), fmt = el.getAttribute("data-fmt");
          if (ptr === own + "/verdict" && fmt === "verdict") sawVerdict = true;
          var inside = ptr === own || ptr.indexOf(own + "/") === 0;
          var counted = ptr === "/predicate/records" && fmt === "test_number" && el.getAttribute("data-arg") === String(wanted[k]);
          if (!inside && !counted) problems.push("the " + kind[1] + " of " + where(own) + " shows " + quote(el.textContent) + " from another place (" + where(ptr) + ")");
        });
        if (!sawVerdict) problems.push("the " + kind[1] + " of " + where(own) + " does not show its verdict");
      });
    });
    groupTableProblems(main, statement, where, problems);
    return problems;
  }

  /* The per-group tables (respai/render/report/group_table.py). Each cell's text is checked
     like every bound text; here, the table's shape: its headings are the report's columns
     in order, each cell has its column's format and key, every cell of a row is the same
     group's counts, the rows are the groups of the grouping its heading names (all of
     them in the record's order, or the ones at each end its note names) and every
     grouping of the record's counts has one table. */
  function groupTableProblems(main, statement, where, problems) {
    var groupings = asDict(asDict(asDict(asDict(statement).predicate).counts).groupings);
    var base = "/predicate/counts/groupings/";
    var heads = ["Group"].concat(GT.columns.map(function (c) { return c[1]; }), GT.rates.map(function (r) { return r[1]; }));
    var cells = [["items", null]].concat(GT.columns.map(function (c) { return ["table_count", c[0]]; }),
      GT.rates.map(function (r) { return ["table_rate", r[0]]; }));
    var tables = {};
    main.querySelectorAll("table.per-group").forEach(function (table) {
      var shownHeads = Array.prototype.map.call(table.querySelectorAll("thead th"), function (th) { return th.textContent; });
      if (JSON.stringify(shownHeads) !== JSON.stringify(heads)) {
        problems.push("a per-group table's columns are " + quote(shownHeads.join(" | ")) + ", not the report's " + quote(heads.join(" | ")));
      }
      var grouping = null, rows = [];
      table.querySelectorAll("tbody tr").forEach(function (tr) {
        var group = null, tds = tr.children;
        if (tds.length !== cells.length) problems.push("a row of a per-group table has " + tds.length + " cells, not one per column");
        Array.prototype.forEach.call(tds, function (td, c) {
          var ptr = td.getAttribute("data-bind") || "", want = cells[c] || ["", ""];
          var arg = td.hasAttribute("data-arg") ? td.getAttribute("data-arg") : null;
          var m = /^(\/predicate\/counts\/groupings\/[^\/]*)\/groups\/(0|[1-9][0-9]*)(\/key)?$/.exec(ptr);
          if (!m || td.getAttribute("data-fmt") !== want[0] || arg !== want[1] || (c === 0) !== (m[3] !== undefined)) {
            problems.push("a per-group table shows " + quote(td.textContent) + " under " + quote(heads[c] || "no heading") + ", where the report shows " + (c < heads.length ? "that column of a group's counts" : "nothing"));
            return;
          }
          var own = m[1] + "/groups/" + m[2];
          if (group === null) group = own;
          else if (own !== group) problems.push("a per-group table shows " + where(own) + " in the row of " + where(group));
          if (grouping === null) grouping = m[1];
          else if (m[1] !== grouping) problems.push("a per-group table shows " + where(own) + ", a group of another grouping than its own");
        });
        if (group !== null) rows.push(+/[0-9]+$/.exec(group)[0]);
      });
      if (grouping === null) { problems.push("a per-group table shows no group"); return; }
      tables[grouping] = (tables[grouping] || 0) + 1;
      var heading = table.previousElementSibling, name = heading && heading.tagName.toLowerCase() === "h3" ? heading.querySelector("[data-bind]") : null;
      if (!name || name.getAttribute("data-bind") !== grouping + "/attributes" || name.getAttribute("data-fmt") !== "items") {
        problems.push("the per-group table of " + where(grouping) + " is not under its grouping's name");
      }
      var list = asList(resolve(statement, grouping + "/groups").value);
      var after = table.nextElementSibling, note = after && after.tagName.toLowerCase() === "p" ? after.querySelector('[data-fmt="listed"]') : null;
      var each = 0;
      if (note) {
        each = drawnEach(note.getAttribute("data-arg"));
        if (each === null || note.getAttribute("data-bind") !== grouping + "/groups") {
          problems.push("a per-group table's note on the groups it lists is not about its own groups");
          return;
        }
      }
      var cases = list.map(function (g) { var counts = groupCounts(g); return counts === null ? null : termSum(GT.columns[0][2], counts); });
      var want = drawnIndexes(cases, each);
      if (JSON.stringify(want) !== JSON.stringify(rows)) {
        problems.push("the per-group table of " + where(grouping) + " lists the groups " + quote(rows.join(", ")) + " where the signed record gives " + quote(want.join(", ")) + (each ? " (the groups at each end its note names)" : ""));
      }
    });
    Object.keys(groupings).forEach(function (key) {
      var g = groupings[key];
      if (!isObject(g) || !asList(g.groups).length) return;
      var ptr = base + key.replace(/~/g, "~0").replace(/\//g, "~1");
      if (tables[ptr] !== 1) problems.push("the page shows " + (tables[ptr] || 0) + " per-group table(s) of " + where(ptr) + "; the report shows one");
    });
  }

  /* Where a verdict may be shown: the run's verdict, its sentence and the counts only in
     the banner (one <section id="verdict"> directly in <main>, showing the run's verdict
     once), and a test's verdict only in that test's own row or section. Each bound
     element passes its own check anywhere, so without this a PASS of one test could be
     bound into the banner of a run that FAILs. */
  function verdictPlaceProblems(main, where, problems) {
    var banner = document.getElementById("verdict"), words = 0, sentences = 0;
    if (!banner || banner.parentNode !== main || banner.tagName.toLowerCase() !== "section") {
      problems.push("the page has no verdict banner at its place");
    }
    main.querySelectorAll('[data-fmt="verdict"], [data-fmt="verdict_sentence"], [data-fmt="verdict_count"]').forEach(function (el) {
      var ptr = el.getAttribute("data-bind"), fmt = el.getAttribute("data-fmt");
      var inBanner = banner !== null && banner.contains(el);
      var own = /^(\/predicate\/records\/(?:0|[1-9][0-9]*)(?:\/monitor\/history\/(?:0|[1-9][0-9]*))?)\/verdict$/.exec(ptr || "");
      var holder = el.closest("[data-record]");
      if (ptr === "/predicate/verdict" && inBanner && fmt !== "verdict_count") {
        if (fmt === "verdict") words += 1; else sentences += 1;
      } else if (fmt === "verdict_count" && ptr === "/predicate/records" && inBanner) {
        return;
      } else if (fmt === "verdict" && own && !inBanner && holder && holder.getAttribute("data-record") === own[1]) {
        return;
      } else {
        problems.push("the page shows the verdict " + quote(el.textContent) + " of " + where(ptr || "") + " where the report never shows it");
      }
    });
    if (banner && (words !== 1 || sentences !== 1)) problems.push("the verdict banner does not show the run's verdict exactly once");
  }

  // -- where the page's parts may be (the renderer's layout, beyond its text) ---------------

  // a chart: the <svg> that opens a <figure class="chart">
  function isChart(svg) {
    var fig = svg.parentNode;
    return !!fig && fig.tagName.toLowerCase() === "figure" && fig.classList.contains("chart") &&
      fig.firstElementChild === svg && !svg.classList.contains("key");
  }
  // a legend key: <svg class="key"> opening a <span> of a chart's <div class="legend">
  function isLegendKey(svg) {
    var span = svg.parentNode, legend = span && span.parentNode, cap = legend && legend.parentNode;
    return svg.classList.contains("key") && !!cap && span.tagName.toLowerCase() === "span" &&
      span.firstElementChild === svg && legend.tagName.toLowerCase() === "div" &&
      legend.classList.contains("legend") && cap.tagName.toLowerCase() === "figcaption" &&
      !!cap.parentNode && isChart(cap.parentNode.firstElementChild || svg);
  }
  function attributePairs(el) {
    return Array.prototype.map.call(el.attributes, function (a) { return [a.name, a.value]; });
  }
  // a legend key is exactly one of the renderer's icons: nothing in it is the record's
  function legendProblems(svg, problems) {
    var frame = [["class", "key"], ["viewBox", "0 0 22 12"], ["width", "22"], ["height", "12"]];
    var marks = Array.prototype.map.call(svg.childNodes, function (n) {
      return n.nodeType === 1 ? [n.tagName, attributePairs(n), n.childNodes.length] : [n.nodeType];
    });
    var known = Object.keys(T.legendIcons).some(function (kind) {
      var icon = T.legendIcons[kind];
      return JSON.stringify(marks) === JSON.stringify(icon.map(function (m) { return [m[0], m[1], 0]; }));
    });
    if (JSON.stringify(attributePairs(svg)) !== JSON.stringify(frame) || !known) {
      problems.push("a chart's legend holds a key the report never draws");
    }
  }
  // a text of a chart lies inside the chart's drawing area
  function insideItsChart(el) {
    var svg = el.ownerSVGElement;
    if (!svg || !isChart(svg) || !svg.viewBox || !svg.viewBox.baseVal) return false;
    var vb = svg.viewBox.baseVal, box;
    try { box = el.getBBox(); } catch (e) { return false; }
    // all of its height and most of its width (a long group name or note may run past
    // an edge of the chart, as the renderer draws it; text moved away is not seen)
    var shown = Math.min(box.x + box.width, vb.x + vb.width) - Math.max(box.x, vb.x);
    return box.y >= vb.y - 1 && box.y + box.height <= vb.y + vb.height + 1 &&
      shown >= 0.5 * box.width;
  }

  // classes and ARIA that give an element a meaning: only where the renderer puts them
  var PLACED = {
    banner: function (el) { return el.id === "verdict"; },
    word: function (el) { return el.parentNode && el.parentNode.id === "verdict" && el.getAttribute("data-fmt") === "verdict"; },
    count: function (el) { return el.getAttribute("data-fmt") === "verdict_count"; },
    badge: function (el) { return el.getAttribute("data-fmt") === "verdict"; },
    "test-section": function (el, main) { return el.parentNode === main && el.tagName.toLowerCase() === "section" && el.hasAttribute("data-record"); },
    "no-print": function (el) { return el.classList.contains("tamper-controls") && !!el.closest("#verification"); },
    "print-only": function (el) { return el.tagName.toLowerCase() === "p" && !!el.closest("#verification"); },
    chart: function (el) { return el.tagName.toLowerCase() === "figure"; },
    legend: function (el) { return el.tagName.toLowerCase() === "div" && !!el.parentNode && el.parentNode.tagName.toLowerCase() === "figcaption"; },
    key: function (el) { return el.tagName.toLowerCase() === "svg" || el.hasAttribute("data-bind"); },
    tampered: function (el) { return el.hasAttribute("data-tamper-target"); },
    // a look copied from an earlier run: its row of a looks table, its marks in a chart
    earlier: function (el) {
      var t = el.tagName.toLowerCase();
      if (t === "tr") return (el.getAttribute("data-record") || "").indexOf("/monitor/history/") >= 0 && !!el.closest("table.looks");
      return el.namespaceURI === SVG && (t === "circle" || t === "line") && !!el.ownerSVGElement && isChart(el.ownerSVGElement);
    },
  };
  var ARIA = {
    "aria-label": function (el, v) { return el.id === "verdict" && v === "verdict"; },
    "aria-live": function (el, v) { return el.id === "verification" && v === "polite"; },
    role: function (el, v) { return v === "img" && el.namespaceURI === SVG && isChart(el); },
  };

  function placementProblems(main, problems) {
    var first = main.firstElementChild, second = first && first.nextElementSibling;
    if (!first || first.tagName.toLowerCase() !== "header" || !second || second.id !== "verdict") {
      problems.push("the page does not open with the record's header and its verdict banner");
    }
    Array.prototype.forEach.call(main.querySelectorAll("*"), function (el) {
      Array.prototype.forEach.call(el.classList, function (c) {
        var ok = c.indexOf("v-") === 0
          ? el.id === "verdict" || ["verdict", "verdict_count"].indexOf(el.getAttribute("data-fmt")) >= 0
          : !has(PLACED, c) || PLACED[c](el, main);
        if (!ok) problems.push("the page gives " + describe(el) + " the class " + quote(c) + ", which the report never puts there");
      });
      Object.keys(ARIA).forEach(function (name) {
        if (el.hasAttribute(name) && !ARIA[name](el, el.getAttribute(name))) {
          problems.push("the page gives " + describe(el) + " " + name + "=" + quote(el.getAttribute(name)) + ", which the report never writes there");
        }
      });
    });
    var quiet = document.querySelectorAll("noscript");
    if (quiet.length !== 1 || quiet[0].parentNode.id !== "verification" || quiet[0].textContent !== T.noscript) {
      problems.push("the page holds a <noscript> of its own, which a browser without scripts would show");
    }
    var banner = document.getElementById("verdict");
    if (banner) {
      var counts = Array.prototype.map.call(banner.querySelectorAll('[data-fmt="verdict_count"]'), function (c) {
        return c.getAttribute("data-bind") === "/predicate/records" ? c.getAttribute("data-arg") : null;
      });
      if (JSON.stringify(counts) !== JSON.stringify(T.verdicts)) {
        problems.push("the verdict banner does not count each of the four verdicts, in order");
      }
    }
  }

  // -- the marks of a chart (respai/render/report/chart.py) ------------------------------

  // the limit line's value: the spread or rule limit of a test record, or a threshold
  function limitValue(fmt, ptr, statement) {
    var v = resolve(statement, ptr).value;
    if (fmt === "spread_limit") { var s = spreadLimit(v); return s ? s[2] : null; }
    if (fmt === "rule_limit") { var r = ruleLimitOf(v); return r ? r[1] : null; }
    if (fmt === "auc_limit") return isNumber(v) ? v : null;
    return null;
  }
  // where a chart's limit line must take its value: [pointer, format], from its title
  function limitSource(svg) {
    var title = svg.querySelector("title[data-fmt]");
    if (!title) return null;
    var fmt = title.getAttribute("data-fmt"), ptr = title.getAttribute("data-bind") || "";
    if (fmt === "spread_title") return [ptr, "spread_limit"];
    if (fmt === "rule_title") return [ptr, "rule_limit"];
    if (fmt === "auc_title") return [ptr.replace(/\/details\/per_group\/[^/]*$/, "") + "/threshold/value", "auc_limit"];
    return null;
  }
  // the limit a chart must draw, from its title's binding (undefined: not a known chart)
  function expectedLimit(svg, statement) {
    var title = svg.querySelector("title[data-fmt]");
    if (!title) return undefined;
    var fmt = title.getAttribute("data-fmt"), ptr = title.getAttribute("data-bind");
    if (fmt === "spread_title") return limitValue("spread_limit", ptr, statement);
    if (fmt === "rule_title") return limitValue("rule_limit", ptr, statement);
    if (fmt === "auc_title") return limitValue("auc_limit", ptr.replace(/\/details\/per_group\/[^/]*$/, "") + "/threshold/value", statement);
    return undefined;
  }

  // how many lowest and highest groups a "drawn" note names (respai/render/report/formats.py)
  function drawnEach(a) { return typeof a === "string" && /^[1-9][0-9]{0,3}$/.test(a) ? Number(a) : null; }
  // the groups a chart draws: all of them, or the `each` lowest and highest values (ties in
  // the record's order), as respai/render/extremes.py:extremes picks them
  function drawnIndexes(values, each) {
    var all = values.map(function (_, i) { return i; });
    if (!each) return all;
    var ranked = all.filter(function (i) { return isNumber(values[i]); })
      .sort(function (a, b) { return values[a] - values[b] || a - b; });
    var pick = {};
    ranked.slice(0, each).concat(ranked.slice(Math.max(ranked.length - each, 0))).forEach(function (i) { pick[i] = true; });
    return all.filter(function (i) { return pick[i] === true; });
  }
  // the list of groups a chart is about and the member it draws, from its title's binding
  function chartGroups(svg) {
    var title = svg.querySelector("title[data-fmt]");
    if (!title) return null;
    var fmt = title.getAttribute("data-fmt"), ptr = title.getAttribute("data-bind") || "";
    if (fmt === "spread_title" || fmt === "rule_title") return { list: ptr + "/details/groups", key: "rate", other: null };
    if (fmt === "auc_title") return { list: ptr, key: "value", other: ptr.replace(/\/per_group\/[^/]*$/, "/overall") };
    return null;
  }
  // every group the chart should draw is drawn, and no other row
  function rowProblems(svg, statement, rows, where, problems) {
    var about = chartGroups(svg);
    if (!about) return;
    var list = asList(resolve(statement, about.list).value), figure = svg.closest("figure");
    var note = figure ? figure.querySelector('[data-fmt="drawn"]') : null, each = 0;
    if (note) {
      each = drawnEach(note.getAttribute("data-arg"));
      if (each === null || note.getAttribute("data-bind") !== about.list) {
        problems.push("a chart's note on the groups it draws is not about its own groups");
        return;
      }
    }
    var prefix = about.list + "/", seen = {};
    Object.keys(rows).forEach(function (row) {
      if (row === about.other) return;
      if (row.indexOf(prefix) === 0) seen[row.slice(prefix.length)] = true;
      else problems.push("a chart draws " + where(row) + ", which is not one of its groups");
    });
    drawnIndexes(list.map(function (g) { return asDict(g)[about.key]; }), each).forEach(function (i) {
      if (seen[String(i)] === true) delete seen[String(i)];
      else problems.push("a chart leaves out " + where(prefix + i) + (each ? ", one of the groups its note says it draws" : ""));
    });
    Object.keys(seen).forEach(function (k) {
      problems.push("a chart draws " + where(prefix + k) + (each ? ", which its note says it leaves out" : ", which is not one of its groups"));
    });
  }

  // -- the monitoring charts (respai/render/report/monitoring.py) ------------------------

  // a monitoring chart: rates (or the largest gap) on y, looks on x. Every mark's look is the
  // look of the test record its pointer is in; every batch of the rule must be drawn, and
  // the limit and alarm lines where the record puts them.
  function seriesProblems(svg, statement, where, problems) {
    var scale = (svg.getAttribute("data-series") || "").split(" ").map(Number);
    if (scale.length !== 8 || !scale.every(isFinite) || !(scale[1] > scale[0]) || !(scale[2] > scale[3]) || !(scale[5] >= scale[4]) || !(scale[7] > scale[6])) {
      problems.push("a chart has no scale, so where it draws its marks cannot be checked");
      return;
    }
    var lo = scale[0], hi = scale[1], y0 = scale[2], y1 = scale[3], first = scale[4], last = scale[5], x0 = scale[6], x1 = scale[7];
    var slot = (x1 - x0) / (last - first + 1);
    function xOf(look) { return x0 + (look - first + 0.5) * slot; }
    function yOf(v) { return y0 - (Math.min(Math.max(v, lo), hi) - lo) / (hi - lo) * (y0 - y1); }
    function near(attr, want) { return Math.abs(parseFloat(attr) - want) <= 0.051; }
    function valueAt(ptr) { var v = ptr === null ? undefined : resolve(statement, ptr).value; return isNumber(v) ? v : null; }
    var title = svg.querySelector("title[data-fmt]");
    var kind = title ? title.getAttribute("data-fmt") : null, own = title ? title.getAttribute("data-bind") || "" : "";
    var ownRec = asDict(resolve(statement, own).value), ownDetails = asDict(ownRec.details);
    if ((kind !== "mon_title" && kind !== "gap_title") || ownRec.test_id !== T.monitorTest || !/^\/predicate\/records\/(0|[1-9][0-9]*)$/.test(own)) {
      problems.push("a chart has no bound title, so what it draws cannot be checked");
      return;
    }
    // the rule's looks: the copies of its earlier looks (run_start.monitor.history), then
    // every monitor_rule test of the title's rule, in chain order; each by its pointer
    var records = asList(asDict(asDict(statement).predicate).records), mine = [];
    var start = asDict(records[0]);
    if (start.record_type === "run_start") {
      asList(asDict(start.monitor).history).forEach(function (h, k) {
        var d = asDict(asDict(h).details);
        if (asDict(h).test_id === T.monitorTest && d.rule === ownDetails.rule && d.stream === ownDetails.stream) mine.push("/predicate/records/0/monitor/history/" + k);
      });
    }
    records.forEach(function (r, i) {
      var d = asDict(asDict(r).details);
      if (asDict(r).test_id === T.monitorTest && asDict(r).record_type === "test" && d.rule === ownDetails.rule) mine.push("/predicate/records/" + i);
    });
    function at(base) { return asDict(resolve(statement, base).value); }
    function copied(base) { return base.indexOf("/monitor/history/") >= 0; }
    if (mine[mine.length - 1] !== own) problems.push("a chart's title is not its rule's latest look");
    var lookList = mine.map(function (b) { return asDict(at(b).details).look; }).filter(isInt);
    if (!lookList.length || first !== Math.min.apply(null, lookList) || last !== Math.max.apply(null, lookList)) {
      problems.push("a chart's axis does not run from its rule's first look to its last");
    }
    function recordOf(ptr) {
      var m = /^(\/predicate\/records\/(?:0|[1-9][0-9]*)(?:\/monitor\/history\/(?:0|[1-9][0-9]*))?)\/details\//.exec(ptr || "");
      return m && mine.indexOf(m[1]) >= 0 ? m[1] : null;
    }
    function lookOf(ptr) { var b = recordOf(ptr); return b === null ? null : asDict(at(b).details).look; }
    // a group's marks: its colour and its offset beside the look, from its index
    function groupOf(ptr) {
      var m = /^\/predicate\/records\/(?:0|[1-9][0-9]*)(?:\/monitor\/history\/(?:0|[1-9][0-9]*))?\/details\/groups\/(0|[1-9][0-9]*)\/batch\/(?:rate|interval\/(?:lo|hi))$/.exec(ptr || "");
      return m ? +m[1] : null;
    }
    // an earlier look's marks are open (class earlier), and only an earlier look's
    function marked(el, ptr) { return el.classList.contains("earlier") === copied(recordOf(ptr) || ""); }
    var groupCount = asList(ownDetails.groups).length;
    function offset(j) { var spacing = Math.min(8, 36 / Math.max(groupCount, 1)); return (j - (groupCount - 1) / 2) * spacing; }
    function coloured(el, j) { return el.classList.contains("s" + (j % T.seriesColours)); }
    var dots = {}, limits = 0, alarms = 0, ticks = [];
    var wantRates = kind === "mon_title";
    svg.querySelectorAll("*").forEach(function (el) {
      var tag = el.tagName.toLowerCase(), cls = el.classList;
      if (["title", "text", "line", "circle", "polygon"].indexOf(tag) < 0) {
        problems.push("a chart holds a <" + tag + "> element the report never draws");
      } else if (tag === "circle") {
        var ptr = el.getAttribute("data-y"), v = valueAt(ptr), look = lookOf(ptr), j = groupOf(ptr);
        if (!wantRates || v === null || !isInt(look) || j === null || !/\/batch\/rate$/.test(ptr)) { problems.push("a chart draws a dot that is not bound to a batch's rate of its rule"); return; }
        if (!near(el.getAttribute("cx"), xOf(look) + offset(j)) || !near(el.getAttribute("cy"), yOf(v)) || !coloured(el, j)) {
          problems.push("a chart draws the dot of " + where(ptr) + " away from its look " + look + " and value " + fixed(v));
        }
        if (!marked(el, ptr)) problems.push("a chart marks the dot of " + where(ptr) + (copied(recordOf(ptr)) ? " as this run's own look, but it is copied from an earlier run" : " as from an earlier run, but it is this run's own look"));
        dots[ptr] = true;
      } else if (tag === "line" && cls.contains("bar")) {
        var p1 = el.getAttribute("data-y1"), p2 = el.getAttribute("data-y2"), a = valueAt(p1), b = valueAt(p2);
        var j2 = groupOf(p1), lk = lookOf(p1);
        if (!wantRates || a === null || b === null || j2 === null || j2 !== groupOf(p2) || recordOf(p1) !== recordOf(p2) || !isInt(lk) ||
            !/\/interval\/lo$/.test(p1) || !/\/interval\/hi$/.test(p2)) { problems.push("a chart draws an interval that is not bound to a batch of its rule"); return; }
        var bx = xOf(lk) + offset(j2);
        if (!near(el.getAttribute("x1"), bx) || !near(el.getAttribute("x2"), bx) || !near(el.getAttribute("y1"), yOf(a)) || !near(el.getAttribute("y2"), yOf(b)) || !coloured(el, j2)) {
          problems.push("a chart draws the interval of " + where(p1.replace(/\/interval\/lo$/, "")) + " away from [" + fixed(a) + ", " + fixed(b) + "]");
        }
        if (!marked(el, p1)) problems.push("a chart marks the interval of " + where(p1.replace(/\/interval\/lo$/, "")) + " unlike where its look comes from");
      } else if (tag === "polygon") {
        bandProblems(el);
      } else if (tag === "line" && cls.contains("limit")) {
        limits += 1;
        var lv = valueAt(el.getAttribute("data-limit"));
        if (el.getAttribute("data-limit") !== own + "/threshold/value" || lv === null) { problems.push("a chart draws a limit line that is not its own rule's limit"); return; }
        if (!near(el.getAttribute("y1"), yOf(lv)) || !near(el.getAttribute("y2"), yOf(lv))) problems.push("a chart draws its limit line away from the limit the signed record gives (" + fixed(lv) + ")");
      } else if (tag === "line" && cls.contains("alarm")) {
        alarms += 1;
        var av = valueAt(el.getAttribute("data-alarm"));
        if (el.getAttribute("data-alarm") !== own + "/details/change/alarm_look" || av === null) { problems.push("a chart marks a change that is not its own rule's alarm"); return; }
        if (!near(el.getAttribute("x1"), xOf(av) - slot / 2) || !near(el.getAttribute("x2"), xOf(av) - slot / 2)) problems.push("a chart marks the change away from look " + av + ", where the signed record puts the alarm");
      } else if (tag === "line" && !(cls.contains("grid") || cls.contains("axis"))) {
        problems.push("a chart holds a line the report never draws");
      } else if (tag === "text" && cls.contains("tick")) {
        var at = lo + (y0 - (parseFloat(el.getAttribute("y")) - 4)) / (y0 - y1) * (hi - lo);
        ticks.push(parseFloat(el.getAttribute("y")) - 4);
        if (!(Math.abs(parseFloat(el.textContent) - at) <= 0.001)) problems.push("a chart's axis reads " + quote(el.textContent) + " where its scale is at " + fixedText(at, 2));
      } else if (tag === "text" && cls.contains("xtick")) {
        var xp = el.getAttribute("data-bind"), xl = lookOf(xp);
        if (xp === null || !/\/details\/look$/.test(xp) || !isInt(xl) || !near(el.getAttribute("x"), xOf(xl))) problems.push("a chart labels a look away from its place");
      }
    });
    function bandProblems(el) {
      var los = (el.getAttribute("data-lo") || "").split(" "), his = (el.getAttribute("data-hi") || "").split(" ");
      var pts = (el.getAttribute("points") || "").trim().split(/\s+/).map(function (p) { return p.split(",").map(Number); });
      var gap = el.classList.contains("gap");
      var ok = los.length === his.length && pts.length === 2 * los.length && los.length > 0 && (gap ? !wantRates : wantRates);
      var band = null;
      for (var i = 0; ok && i < los.length; i++) {
        var l = los[i], h = his[i], look = lookOf(l), a = valueAt(l), b = valueAt(h);
        var base = l.replace(/\/lo$/, "");
        var shape = gap ? /\/details\/gap_bounds\/lo$/.test(l) : /\/details\/groups\/(0|[1-9][0-9]*)\/interval\/lo$/.test(l);
        if (!shape || h !== base + "/hi" || a === null || b === null || !isInt(look)) { ok = false; break; }
        var j = gap ? -1 : +/\/groups\/(0|[1-9][0-9]*)\//.exec(l)[1];
        if (band === null) band = j; else if (band !== j) { ok = false; break; }
        if (i > 0 && lookOf(los[i - 1]) >= look) { ok = false; break; }
        var top = pts[i], bottom = pts[pts.length - 1 - i];
        if (!near(top[0], xOf(look)) || !near(bottom[0], xOf(look)) || !near(top[1], yOf(b)) || !near(bottom[1], yOf(a))) {
          problems.push("a chart draws the band of " + where(base) + " away from [" + fixed(a) + ", " + fixed(b) + "]");
          return;
        }
      }
      if (!ok || (!gap && !coloured(el, band))) { problems.push("a chart draws a band that is not bound to its rule's intervals"); return; }
      // the band runs through every look of the rule that has the interval
      var want = mine.filter(function (b) {
        var d = asDict(at(b).details), iv = gap ? asDict(d.gap_bounds) : asDict(asDict(asList(d.groups)[band]).interval);
        return isNumber(iv.lo) && isNumber(iv.hi);
      }).map(function (b) { return b + (gap ? "/details/gap_bounds/lo" : "/details/groups/" + band + "/interval/lo"); });
      if (JSON.stringify(want) !== JSON.stringify(los)) problems.push("a chart's band leaves out a look of its rule");
    }
    if (wantRates) {
      mine.forEach(function (b) {
        asList(asDict(at(b).details).groups).forEach(function (g, j) {
          var ptr = b + "/details/groups/" + j + "/batch/rate";
          if (isNumber(asDict(asDict(g).batch).rate) && dots[ptr] !== true) problems.push("a chart leaves out the batch of " + where(ptr.replace(/\/batch\/rate$/, "")));
        });
      });
    }
    if (!ticks.some(function (t) { return near(t, y0); }) || !ticks.some(function (t) { return near(t, y1); })) problems.push("a chart's axis has no label at one of its ends");
    var th = asDict(ownRec.threshold), limit = th.value;
    var limited = wantRates ? th.comparison === "worst_max" || th.comparison === "worst_min" : th.comparison === "max_group_gap";
    if (limited && isNumber(limit) && lo <= limit && limit <= hi && limits === 0) problems.push("a chart leaves out its limit line (" + fixed(limit) + ")");
    if (!limited && limits > 0) problems.push("a chart draws a limit line its rule does not have");
    var alarm = asDict(ownDetails.change).alarm_look;
    if (isInt(alarm) && first <= alarm && alarm <= last && alarms === 0) problems.push("a chart leaves out the change detected at look " + alarm);
    if (alarms > 1) problems.push("a chart marks more than one change");
  }

  function chartProblems(svg, statement, where, problems) {
    if (svg.hasAttribute("data-series")) { seriesProblems(svg, statement, where, problems); return; }
    var scale = (svg.getAttribute("data-scale") || "").split(" ").map(Number);
    if (scale.length !== 4 || !scale.every(isFinite) || !(scale[1] > scale[0]) || !(scale[3] > scale[2])) {
      problems.push("a chart has no scale, so where it draws its marks cannot be checked");
      return;
    }
    var lo = scale[0], hi = scale[1], x0 = scale[2], x1 = scale[3], rows = {}, ticks = [], limits = 0;
    function xOf(v) { return x0 + (Math.min(Math.max(v, lo), hi) - lo) / (hi - lo) * (x1 - x0); }
    function near(attr, want) { return Math.abs(parseFloat(attr) - want) <= 0.051; }
    function valueAt(ptr) { var v = ptr === null ? undefined : resolve(statement, ptr).value; return isNumber(v) ? v : null; }
    function onAxis(v) { return !((v < lo - 1e-9 && lo > 0) || (v > hi + 1e-9 && hi < 1)); }
    function ofRow(ptr, row) { return ptr !== null && row !== null && (ptr === row || ptr.indexOf(row + "/") === 0); }
    function line(el, y) {
      var row = el.getAttribute("data-row");
      if (row === null) return;
      if (!has(rows, row)) rows[row] = y;
      else if (Math.abs(rows[row] - y) > 0.051) problems.push("a chart draws part of " + where(row) + " on another row");
    }
    svg.querySelectorAll("*").forEach(function (el) {
      var tag = el.tagName.toLowerCase(), row = el.getAttribute("data-row"), cls = el.classList;
      if (["title", "text", "line", "circle", "g"].indexOf(tag) < 0) {
        problems.push("a chart holds a <" + tag + "> element the report never draws");
      } else if (tag === "circle") {
        var ptr = el.getAttribute("data-x"), v = valueAt(ptr);
        if (v === null || !ofRow(ptr, row)) { problems.push("a chart draws a dot that is not bound to a value of its row"); return; }
        if (!near(el.getAttribute("cx"), xOf(v)) || !onAxis(v)) problems.push("a chart draws the dot of " + where(ptr) + " away from its value " + fixed(v));
        line(el, parseFloat(el.getAttribute("cy")));
      } else if (tag === "line" && (cls.contains("inner") || cls.contains("outer"))) {
        var p1 = el.getAttribute("data-x1"), p2 = el.getAttribute("data-x2"), a = valueAt(p1), b = valueAt(p2);
        if (a === null || b === null || !ofRow(p1, row) || !ofRow(p2, row)) { problems.push("a chart draws an interval that is not bound to its row"); return; }
        var end = cls.contains("inner") ? Math.max(xOf(b), xOf(a) + 1) : xOf(b);
        if (!near(el.getAttribute("x1"), xOf(a)) || !near(el.getAttribute("x2"), end) || !onAxis(a) || !onAxis(b)) {
          problems.push("a chart draws the interval of " + where(row) + " away from [" + fixed(a) + ", " + fixed(b) + "]");
        }
        line(el, (parseFloat(el.getAttribute("y1")) + parseFloat(el.getAttribute("y2"))) / 2);
      } else if (tag === "line" && cls.contains("limit")) {
        limits += 1;
        var own = limitSource(svg);
        if (!own || el.getAttribute("data-limit") !== own[0] || el.getAttribute("data-limit-fmt") !== own[1]) {
          problems.push("a chart draws a limit line that is not its own test's limit");
          return;
        }
        var want = limitValue(el.getAttribute("data-limit-fmt"), el.getAttribute("data-limit") || "", statement);
        if (want === null || !near(el.getAttribute("x1"), xOf(want)) || !near(el.getAttribute("x2"), xOf(want))) {
          problems.push("a chart draws its limit line away from the limit the signed record gives" + (want === null ? "" : " (" + fixed(want) + ")"));
        }
      } else if (tag === "line" && !(cls.contains("grid") || cls.contains("axis"))) {
        problems.push("a chart holds a line the report never draws");
      } else if (tag === "text") {
        if (cls.contains("tick")) {
          var at = lo + (parseFloat(el.getAttribute("x")) - x0) / (x1 - x0) * (hi - lo);
          ticks.push(parseFloat(el.getAttribute("x")));
          if (!(Math.abs(parseFloat(el.textContent) - at) <= 0.001)) problems.push("a chart's axis reads " + quote(el.textContent) + " where its scale is at " + fixedText(at, 2));
        }
        if (row !== null) {
          var bind = el.getAttribute("data-bind");
          if (bind !== null && !ofRow(bind, row)) problems.push("a chart shows " + quote(el.textContent) + " on the row of " + where(row));
          line(el, parseFloat(el.getAttribute("y")) - 4);
        }
      }
    });
    if (!ticks.some(function (t) { return near(t, x0); }) || !ticks.some(function (t) { return near(t, x1); })) {
      problems.push("a chart's axis has no label at one of its ends");
    }
    rowProblems(svg, statement, rows, where, problems);
    var limit = expectedLimit(svg, statement);
    if (limit === undefined) problems.push("a chart has no bound title, so what it draws cannot be checked");
    else if (limit !== null && lo <= limit && limit <= hi && limits === 0) problems.push("a chart leaves out its limit line (" + fixed(limit) + ")");
  }

  return {
    format: format,
    formats: Object.keys(FORMATS),
    resolve: resolve,
    pageProblems: pageProblems,
    ownedProblems: ownedProblems,
    drawnIndexes: drawnIndexes,
    shown: shown,
    fixed: fixed,
    wilson: wilson,
  };
})();
