"""The verification box: where the page's script reports what it checked, and Tamper.

The elements with an id in :data:`SCRIPT_OWNED` (the title, the summary, the checks, the
key, the page code, the tamper note) are written by the script only. The page check skips
what they hold once written, so it first requires each to appear exactly once, inside
this box, holding exactly the text the renderer writes there: a file that puts anything
of its own in them, or a second element with one of their ids, reads "Not verified".
"""

from __future__ import annotations

__all__ = ["NOSCRIPT", "SCRIPT_OWNED", "verification_box"]

#: What the page shows where scripts do not run (its one ``<noscript>``, checked as is).
NOSCRIPT = (
    "<p>Verification needs JavaScript. Without it, check the record with "
    "<code>respai verify record.json --key public_key.pem</code>.</p>"
)

#: The elements whose text the page's script writes: id -> (tag, the text the file holds).
SCRIPT_OWNED: dict[str, tuple[str, str]] = {
    "verify-title": ("strong", "Checking the signature and the hash chain…"),
    "verify-summary": ("p", ""),
    "verify-chips": ("ul", ""),
    "verify-checks": ("ul", ""),
    "verify-key": ("code", "not checked yet"),
    "verify-code": ("code", "not checked yet"),
    "tamper-note": ("span", ""),
}


def _owned(element_id: str, classes: str = "") -> str:
    tag, text = SCRIPT_OWNED[element_id]
    attributes = f' class="{classes}"' if classes else ""
    return f'<{tag} id="{element_id}"{attributes}>{text}</{tag}>'


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
        f"{_owned('verify-title')}</div>"
        f"{_owned('verify-summary', 'small')}"
        '<p class="small key-line">Signed with key '
        f"{_owned('verify-key', 'mono hash')}</p>"
        f'<p class="small">{key_note}</p>'
        '<p class="small key-line">Page code '
        f"{_owned('verify-code', 'mono hash')}</p>"
        '<p class="small">The page code is the SHA-256 of this page\'s script, which '
        "fixes its layout and styles and makes these checks; every report written by one "
        "respai version has the same page code (respai report prints it). These checks run "
        "inside the page, which cannot vouch for itself: to check the file, run respai "
        "verify report.html with the signer's keys.json.</p>"
        f"{_owned('verify-chips', 'chips')}"
        '<details id="verify-details"><summary>What each check found</summary>'
        f"{_owned('verify-checks', 'small')}</details>"
        '<p class="small muted">The checks run in this browser with WebCrypto; nothing is '
        "sent anywhere.</p>"
        '<p class="small print-only">Printed copy: these checks ran in the browser when '
        "the page was printed. Paper cannot be verified; the signed record.json can.</p>"
        f"<noscript>{NOSCRIPT}</noscript>"
        '<div class="tamper-controls no-print">'
        '<button type="button" id="tamper">Tamper with a value</button>'
        '<button type="button" id="reset" disabled>Reset</button>'
        f"{_owned('tamper-note')}</div>"
        "</section>"
    )
