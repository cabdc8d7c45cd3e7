"""The verification box: where the page's script reports what it checked, and Tamper."""

from __future__ import annotations

from respai.render.escape import html_text

__all__ = ["verification_box"]


def verification_box(has_key: bool) -> str:
    """The box the page's script fills with what it checked, with Tamper and Reset."""
    key_note = (
        "The signature is checked against the public key embedded in this page: compare its "
        "key id with the one the signer publishes."
        if has_key
        else "No public key was embedded, so the signature cannot be checked here."
    )
    return (
        '<section class="verify" id="verification" data-state="pending" aria-live="polite">'
        '<div class="verify-head"><span class="dot"></span>'
        '<strong id="verify-title">Checking the signature and the hash chain…</strong></div>'
        '<p id="verify-summary" class="small"></p>'
        '<ul id="verify-chips" class="chips"></ul>'
        '<details id="verify-details"><summary>What each check found</summary>'
        '<ul id="verify-checks" class="small"></ul></details>'
        f'<p class="small muted">{html_text(key_note)} The checks run in this browser with '
        "WebCrypto; nothing is sent anywhere.</p>"
        '<p class="small print-only">Printed copy: these checks ran in the browser when '
        "the page was printed. Paper cannot be verified; the signed record.json can.</p>"
        "<noscript><p>Verification needs JavaScript. Without it, check the record with "
        "<code>respai verify record.json --key public_key.pem</code>.</p></noscript>"
        '<div class="tamper-controls no-print">'
        '<button type="button" id="tamper">Tamper with a value</button>'
        '<button type="button" id="reset" disabled>Reset</button>'
        '<span id="tamper-note"></span></div>'
        "</section>"
    )
