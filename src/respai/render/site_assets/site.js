/* respai audit site: a page of the site checks itself against the signed site manifest.
   The page embeds the manifest (a DSSE envelope over an in-toto Statement whose predicate
   lists the ledger's runs, the LL144 dates, the monitoring streams and the comparisons)
   and the raw Ed25519 public key. On load it verifies the signature over the DSSE PAE,
   the canonical payload (RFC 8785) and the predicate's key_id, then the page itself:
   - outside <main>: exactly the shell the renderer writes (RespaiSiteTables.shell), the
     CSP naming this script's own hash, the style sheet by its hash, a title that is one of
     the fixed labels, no comment anywhere;
   - inside <main>: only the renderer's tags, attributes and classes, no id used twice;
     every element with data-bind shows exactly its value in the signed predicate, in the
     named format (respai/site/page.py implements the same formats); every other text is
     one of the fixed labels; a link goes where the manifest says (data-href); a row
     (data-row) shows only its own item; a list (data-list) holds one row per item, in
     order; the page holds every list and value its kind requires.
   It then writes the outcome into #verify-title and #verify-detail and sets
   <html data-verified="true|false|unsupported" data-failed="...">. Nothing read from the
   manifest is ever parsed as HTML. */
(function () {
  "use strict";
  var C = RespaiCore;
  var T = RespaiSiteTables;
  var SELF = document.currentScript;
  var root = document.documentElement;
  var DASH = "\u2014";
  var LABELS = new Set(T.labels);
  var TAGS = new Set(T.tags);
  var ATTRIBUTES = new Set(T.attributes);
  var CLASSES = new Set(T.classes);
  var UNSAFE = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]/gu;
  var SHORT = { "\t": "\\t", "\n": "\\n", "\r": "\\r" };
  var HREF = /^(?:[A-Za-z0-9_-][A-Za-z0-9._-]*\/)?[A-Za-z0-9_-][A-Za-z0-9._-]*\.html$/;
  var PROBE_KEY = "11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=";

  function has(o, k) { return Object.prototype.hasOwnProperty.call(o, k); }
  function isObject(v) { return v !== null && typeof v === "object" && !Array.isArray(v); }
  function pad(n, w) { var s = String(n); while (s.length < w) s = "0" + s; return s; }
  function quote(s) { return JSON.stringify(String(s).slice(0, 80)); }

  // respai.render.escape.terminal_text
  function shown(s) {
    return s.replace(UNSAFE, function (c) {
      if (has(SHORT, c)) return SHORT[c];
      var code = c.codePointAt(0);
      if (code <= 0xff) return "\\x" + pad(code.toString(16), 2);
      if (code <= 0xffff) return "\\u" + pad(code.toString(16), 4);
      return "\\U" + pad(code.toString(16), 8);
    });
  }

  // the formats of respai/site/page.py, name for name
  var FORMATS = {
    text: function (v) { return typeof v === "string" && v !== "" ? shown(v) : DASH; },
    count: function (v) {
      if (typeof v !== "number" || !Number.isSafeInteger(v)) return DASH;
      return (v < 0 ? "-" : "") + String(Math.abs(v)).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
    },
    short_hash: function (v) {
      if (typeof v !== "string" || v === "") return DASH;
      var body = v.indexOf("sha256:") === 0 ? v.slice(7) : v, c = Array.from(body);
      return shown(c.length > 12 ? "sha256:" + c.slice(0, 12).join("") + "\u2026" : v);
    },
  };

  function resolve(doc, pointer) {
    if (typeof pointer !== "string" || (pointer !== "" && pointer[0] !== "/")) return { ok: false };
    var value = doc;
    var parts = pointer === "" ? [] : pointer.slice(1).split("/");
    for (var i = 0; i < parts.length; i++) {
      var key = parts[i].replace(/~1/g, "/").replace(/~0/g, "~");
      if (Array.isArray(value) && /^(0|[1-9][0-9]*)$/.test(key) && +key < value.length) value = value[+key];
      else if (isObject(value) && has(value, key)) value = value[key];
      else return { ok: false };
    }
    return { ok: true, value: value };
  }

  function pae(type, payload) {
    var t = C.utf8(type);
    return C.concat([C.utf8("DSSEv1 " + t.length + " "), t, C.utf8(" " + payload.length + " "), payload]);
  }

  function readJSON(id) {
    var el = document.getElementById(id);
    if (!el) return null;
    try { return JSON.parse(el.textContent); } catch (e) { return null; }
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

  // the manifest: signature, canonical payload, Statement and key id
  async function checkManifest(env, keyInfo, supported) {
    var out = { statement: null, keyId: null, failed: [], notes: [] };
    function fail(name, why) { out.failed.push(name); out.notes.push(name + ": " + why); }
    if (!isObject(env) || typeof env.payload !== "string" || env.payloadType !== T.payloadType ||
        !Array.isArray(env.signatures) || env.signatures.length === 0) {
      fail("envelope", "the page holds no DSSE envelope of a site manifest");
      return out;
    }
    var payload;
    try { payload = C.b64decode(env.payload); } catch (e) { fail("envelope", "the payload is not base64"); return out; }
    try { out.statement = JSON.parse(C.fromUtf8(payload)); } catch (e) { fail("envelope", "the payload is not JSON"); return out; }
    var canonical = null;
    try { canonical = C.utf8(C.jcs(out.statement)); } catch (e) { canonical = null; }
    if (canonical === null || !C.equalBytes(canonical, payload)) fail("canonical_payload", "the payload is not RFC 8785 canonical JSON");
    var st = out.statement;
    if (!isObject(st) || st._type !== T.statementType || st.predicateType !== T.predicateType || !isObject(st.predicate)) {
      fail("statement", "the payload is not a respai site manifest");
    }
    if (!isObject(keyInfo) || typeof keyInfo.raw_b64 !== "string") { fail("signature", "no public key is embedded in this page"); return out; }
    var raw, key;
    try {
      raw = C.b64decode(keyInfo.raw_b64);
      out.keyId = "sha256:" + C.hex(await C.sha256(raw));
    } catch (e) { fail("signature", "the embedded public key is not base64"); return out; }
    if (!supported) { fail("signature", "this browser cannot check Ed25519 signatures"); return out; }
    try { key = await crypto.subtle.importKey("raw", raw, { name: "Ed25519" }, false, ["verify"]); } catch (e) {
      fail("signature", "the embedded public key is not a 32-byte Ed25519 key"); return out;
    }
    var signed = pae(env.payloadType, payload), matched = false;
    for (var i = 0; i < env.signatures.length; i++) {
      var sig;
      try { sig = C.b64decode(isObject(env.signatures[i]) ? env.signatures[i].sig : null); } catch (e) { continue; }
      if (await crypto.subtle.verify({ name: "Ed25519" }, key, sig, signed)) { matched = true; break; }
    }
    if (!matched) fail("signature", "no signature verifies with key " + out.keyId);
    else if (!isObject(st) || !isObject(st.predicate) || st.predicate.key_id !== out.keyId) {
      fail("signature", "the signature matches key " + out.keyId + ", but the manifest names another key");
    }
    return out;
  }

  function attributePairs(el) {
    return Array.prototype.map.call(el.attributes, function (a) { return [a.name, a.value]; });
  }
  function describe(el) { return "<" + el.tagName.toLowerCase() + ">"; }

  async function digest64(text) { return "'sha256-" + C.b64encode(await C.sha256(C.utf8(text))) + "'"; }

  // everything outside <main>, as respai/site/page.py writes it
  async function shellProblems(problems) {
    var S = T.shell;
    if (JSON.stringify(attributePairs(root)) !== JSON.stringify(S.html)) problems.push("the <html> element is not the one the site writes");
    var head = document.head, body = document.body;
    var heads = head ? Array.prototype.slice.call(head.children) : [];
    var bodies = body ? Array.prototype.slice.call(body.children) : [];
    var own = SELF ? await digest64(SELF.textContent) : null;
    if (heads.length !== S.head.length) problems.push("the <head> holds other elements than the site writes");
    else heads.forEach(function (el, i) {
      var want = S.head[i], pairs = want[1].map(function (p) { return [p[0], p[1] === S.cspSlot ? S.csp.replace(S.cspSlot, own) : p[1]]; });
      if (el.tagName.toLowerCase() !== want[0] || JSON.stringify(attributePairs(el)) !== JSON.stringify(pairs)) {
        problems.push("the <head> element " + describe(el) + " is not the one the site writes");
      }
    });
    var title = head ? head.querySelector("title") : null;
    if (!title || !LABELS.has(title.textContent)) problems.push("the page title is not one of the site's titles");
    var style = head ? head.querySelector("style") : null;
    if (!style || (await digest64(style.textContent)) !== S.styleSha256) problems.push("the style sheet is not the site's");
    if (bodies.length !== S.body.length) problems.push("the <body> holds other elements than the site writes");
    else bodies.forEach(function (el, i) {
      var want = S.body[i], pairs = attributePairs(el);
      // <main> names its page kind and the manifest item it shows (checked in mainProblems)
      if (want[0] === "main") pairs = pairs.map(function (p) { return p[0]; }), want = [want[0], ["data-page", "data-at"]];
      if (el.tagName.toLowerCase() !== want[0] || JSON.stringify(pairs) !== JSON.stringify(want[1])) {
        problems.push("the <body> element " + describe(el) + " is not the one the site writes");
      }
    });
    if (bodies.length && bodies[bodies.length - 1] !== SELF) problems.push("the page's script is not its last element");
    var walker = document.createTreeWalker(document, NodeFilter.SHOW_COMMENT | NodeFilter.SHOW_PROCESSING_INSTRUCTION);
    if (walker.nextNode()) problems.push("the page holds a comment the site never writes");
    [root, head, body].forEach(function (el) {
      if (!el) return;
      Array.prototype.forEach.call(el.childNodes, function (n) {
        if (n.nodeType === 3 && n.data.trim() !== "") problems.push("the page holds text outside <main>");
      });
    });
  }

  // inside <main>: every text is bound or a label; lists, rows and links as the manifest says
  function mainProblems(main, statement, problems) {
    var ids = {};
    var at = main.getAttribute("data-at") || "";
    var page = main.getAttribute("data-page") || "";
    if (!has(T.pages, page) || !/^\/predicate(\/[a-z_0-9]+)*$/.test(at)) problems.push("the page does not say which page of the site it is");
    Array.prototype.forEach.call(main.querySelectorAll("*"), function (el) {
      var tag = el.tagName.toLowerCase();
      if (!TAGS.has(tag)) problems.push("the page holds a " + describe(el) + " element the site never writes");
      Array.prototype.forEach.call(el.attributes, function (a) {
        if (!ATTRIBUTES.has(a.name)) problems.push("the page gives " + describe(el) + " the attribute " + a.name);
      });
      Array.prototype.forEach.call(el.classList, function (c) {
        if (!CLASSES.has(c)) problems.push("the page gives " + describe(el) + " the class " + quote(c));
      });
      if (el.id) {
        if (has(ids, el.id)) problems.push("the page uses the id " + quote(el.id) + " twice");
        ids[el.id] = true;
      }
      var bind = el.getAttribute("data-bind");
      if (bind !== null) {
        var fmt = el.getAttribute("data-fmt"), r = resolve(statement, bind);
        if (!has(FORMATS, fmt)) problems.push("the page names an unknown format " + quote(fmt));
        else if (!r.ok) problems.push("the page shows a value the manifest does not hold (" + quote(bind) + ")");
        else if (el.children.length || el.textContent !== FORMATS[fmt](r.value)) {
          problems.push("the page shows " + quote(el.textContent) + " where the signed manifest says " + quote(FORMATS[fmt](r.value)));
        }
      } else {
        Array.prototype.forEach.call(el.childNodes, function (n) {
          if (n.nodeType === 3 && n.data.trim() !== "" && !LABELS.has(n.data)) problems.push("the page shows " + quote(n.data) + ", which is neither signed nor one of the site's labels");
        });
      }
      if (tag === "a") {
        var target = resolve(statement, el.getAttribute("data-href") || "#");
        if (!target.ok || typeof target.value !== "string" || !HREF.test(target.value) || el.getAttribute("href") !== target.value) {
          problems.push("a link goes where the signed manifest does not say");
        }
      } else if (el.hasAttribute("href") || el.hasAttribute("data-href")) problems.push("the page gives " + describe(el) + " a link");
      var row = el.getAttribute("data-row");
      if (row !== null) {
        Array.prototype.forEach.call(el.querySelectorAll("[data-bind],[data-href]"), function (inner) {
          var p = inner.getAttribute("data-bind") || inner.getAttribute("data-href");
          if (p !== row && p.indexOf(row + "/") !== 0) problems.push("a row shows " + quote(inner.textContent) + ", which is not its own item's");
        });
      }
      var list = el.getAttribute("data-list");
      if (list !== null) {
        var items = resolve(statement, list), rows = Array.prototype.filter.call(el.children, function (c) { return c.hasAttribute("data-row"); });
        if (!items.ok || !Array.isArray(items.value)) problems.push("the page lists " + quote(list) + ", which the manifest does not hold");
        else if (rows.length !== items.value.length || rows.some(function (c, i) { return c.getAttribute("data-row") !== list + "/" + i; })) {
          problems.push("the list " + quote(list) + " does not show every item of the signed manifest, in order");
        }
      }
    });
    Array.prototype.forEach.call(main.childNodes, function (n) {
      if (n.nodeType === 3 && n.data.trim() !== "" && !LABELS.has(n.data)) problems.push("the page shows " + quote(n.data) + ", which is neither signed nor one of the site's labels");
    });
    if (has(T.pages, page)) {
      T.pages[page].lists.forEach(function (suffix) {
        if (!main.querySelector('[data-list="' + at + suffix + '"]')) problems.push("the page leaves out the list " + quote(at + suffix));
      });
      T.pages[page].values.forEach(function (suffix) {
        if (!main.querySelector('[data-bind="' + at + suffix + '"]')) problems.push("the page leaves out " + quote(at + suffix));
      });
      var target = resolve(statement, at);
      if (!target.ok || !isObject(target.value)) problems.push("the page is about " + quote(at) + ", which the manifest does not hold");
    }
    T.owned.forEach(function (o) {
      var el = document.getElementById(o[0]);
      if (!el || el.tagName.toLowerCase() !== o[1] || el.textContent !== o[2]) problems.push("the verification box is not the one the site writes");
    });
  }

  function write(id, text) { var el = document.getElementById(id); if (el) el.textContent = text; }

  async function run() {
    var supported = await ed25519Available();
    var result = await checkManifest(readJSON("respai-site-manifest"), readJSON("respai-public-key"), supported);
    var problems = [];
    await shellProblems(problems);
    var main = document.querySelector("main");
    if (!main) problems.push("the page has no <main>");
    else mainProblems(main, isObject(result.statement) ? result.statement : {}, problems);
    var failed = result.failed.slice();
    if (problems.length) failed.push("page_text");
    var state = failed.length === 0 ? "true" : !supported && failed.length === 1 && failed[0] === "signature" ? "unsupported" : "false";
    var notes = result.notes.concat(problems.slice(0, 6));
    if (problems.length > 6) notes.push("and " + (problems.length - 6) + " more");
    if (state === "true") {
      write("verify-title", "Verified");
      write("verify-detail", "The signature over the site manifest verifies with key " + result.keyId + ", and every text on this page is the signed manifest's or one of the site's fixed labels. Compare the key id with the one the key holder publishes.");
    } else if (state === "unsupported") {
      write("verify-title", "Signature not checked: this browser has no Ed25519 in WebCrypto");
      write("verify-detail", "Every other check passed. Open the page in a current browser, or check site.json with respai.");
    } else {
      write("verify-title", "Not verified: " + failed.join(", "));
      write("verify-detail", notes.join("; "));
    }
    root.setAttribute("data-failed", state === "true" ? "" : failed.join(" "));
    root.setAttribute("data-verified", state);
  }

  run().catch(function (e) {
    write("verify-title", "Not verified: page_text");
    write("verify-detail", "the check stopped: " + (e && e.message ? e.message : String(e)));
    root.setAttribute("data-failed", "page_text");
    root.setAttribute("data-verified", "false");
  });
})();
