"""The verification box: where the page's script reports what it checked, and Tamper.

The elements with an id here (the title, the summary, the checks, the key, the tamper
note) are written by the script only; whatever the file holds in them is replaced.
"""

from __future__ import annotations

__all__ = ["SCRIPT_OWNED", "verification_box"]

#: The ids of the elements whose text the page's script writes (the page check skips them).
SCRIPT_OWNED = (
    "verify-title",
    "verify-summary",
    "verify-chips",
    "verify-checks",
    "verify-key",
    "tamper-note",
)


def verification_box(has_key: bool) -> str:
    """The box the page's script fills with what it checked, with Tamper and Reset."""
    key_note = (
        "The signature is checked against the public key embedded in this page, and "
        "anyone who can edit the page can embed their own key. Compare the full key id "
        "above with the key id the key holder publishes for their public key (the key_id "
        "of their keys.json entry, or respai verify record.json --keys keys.json): only "
        "that comparison tells you who signed."
        if has_key
        else "No public key was embedded, so the signature cannot be checked here."
    )
    return (
        '<section class="verify" id="verification" data-state="pending" aria-live="polite">'
        '<div class="verify-head"><span class="dot"></span>'
        '<strong id="verify-title">Checking the signature and the hash chain…</strong></div>'
        '<p id="verify-summary" class="small"></p>'
        '<p class="small key-line">Signed with key <code id="verify-key" class="mono hash">'
        "not checked yet</code></p>"
        f'<p class="small">{key_note}</p>'
        '<ul id="verify-chips" class="chips"></ul>'
        '<details id="verify-details"><summary>What each check found</summary>'
        '<ul id="verify-checks" class="small"></ul></details>'
        '<p class="small muted">The checks run in this browser with WebCrypto; nothing is '
        "sent anywhere.</p>"
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
