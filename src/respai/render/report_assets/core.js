/* respai core: RFC 8785 canonical JSON (JCS), base64, hex and SHA-256 helpers.
   No dependencies; shared by the evidence report and the sample page. */
var RespaiCore = (function () {
  "use strict";

  // a high surrogate not followed by a low one, or a low one not preceded by a high one
  var LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?:^|[^\uD800-\uDBFF])[\uDC00-\uDFFF]/;

  function jcsString(s) {
    if (LONE_SURROGATE.test(s)) throw new Error("a string holds a lone surrogate");
    return JSON.stringify(s);
  }

  // RFC 8785: ES number and string serialisation, object keys sorted by UTF-16 code
  // units (the default sort), no whitespace.
  function jcs(value) {
    if (value === null || typeof value === "boolean") return JSON.stringify(value);
    if (typeof value === "number") {
      if (!Number.isFinite(value)) throw new Error("a number is not finite");
      return JSON.stringify(value);
    }
    if (typeof value === "string") return jcsString(value);
    if (Array.isArray(value)) return "[" + value.map(jcs).join(",") + "]";
    if (typeof value === "object") {
      return "{" + Object.keys(value).sort().map(function (k) {
        return jcsString(k) + ":" + jcs(value[k]);
      }).join(",") + "}";
    }
    throw new Error("a value of type " + typeof value + " has no JSON form");
  }

  function utf8(text) { return new TextEncoder().encode(text); }

  function fromUtf8(bytes) { return new TextDecoder("utf-8", { fatal: true }).decode(bytes); }

  // standard or URL-safe base64, with or without padding
  function b64decode(text) {
    if (typeof text !== "string") throw new Error("not a base64 string");
    var s = text.trim().replace(/-/g, "+").replace(/_/g, "/").replace(/=+$/, "");
    if (/[^A-Za-z0-9+/]/.test(s) || s.length % 4 === 1) throw new Error("not valid base64");
    var bin = atob(s + "===".slice(0, (4 - (s.length % 4)) % 4));
    var out = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  }

  function b64encode(bytes) {
    var parts = [];
    for (var i = 0; i < bytes.length; i += 0x8000) {
      parts.push(String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000)));
    }
    return btoa(parts.join(""));
  }

  function hex(bytes) {
    var b = new Uint8Array(bytes), out = "";
    for (var i = 0; i < b.length; i++) out += (b[i] < 16 ? "0" : "") + b[i].toString(16);
    return out;
  }

  function concat(chunks) {
    var total = chunks.reduce(function (n, c) { return n + c.length; }, 0);
    var out = new Uint8Array(total), at = 0;
    chunks.forEach(function (c) { out.set(c, at); at += c.length; });
    return out;
  }

  function equalBytes(a, b) {
    if (a.length !== b.length) return false;
    for (var i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
    return true;
  }

  function sha256(bytes) {
    return crypto.subtle.digest("SHA-256", bytes).then(function (d) { return new Uint8Array(d); });
  }

  return {
    jcs: jcs, utf8: utf8, fromUtf8: fromUtf8, b64decode: b64decode, b64encode: b64encode,
    hex: hex, concat: concat, equalBytes: equalBytes, sha256: sha256,
  };
})();
