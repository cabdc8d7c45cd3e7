"""Retire or revoke a key listed in a keys.json (the example of docs/keys.md).

    python keys_admin.py retire KEYS_JSON KEY_ID    # rotation: the key signs nothing later
    python keys_admin.py revoke KEYS_JSON KEY_ID    # compromise: the key verifies nothing

Both write the current time (RFC 3339 UTC) into the key's entry and leave the public key
listed, so records keep pointing at a key the verifier can find.
"""

import sys
from pathlib import Path

from respai.record import now_utc, retire_key, revoke_key

action, keys_json, key_id = sys.argv[1], Path(sys.argv[2]), sys.argv[3]
if action == "retire":
    retire_key(keys_json, key_id, now_utc())  # sets not_after
elif action == "revoke":
    revoke_key(keys_json, key_id, now_utc())  # sets revoked_at
else:
    sys.exit(f"unknown action {action!r}: use retire or revoke")
print(f"{action}d {key_id} in {keys_json}")
