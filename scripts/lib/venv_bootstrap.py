"""Runs the calling script inside the project's Python venv (.build-venv/ at the repository
root, git-ignored), creating it and installing the pinned PyPI packages on first use."""

import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
VENV = os.path.join(ROOT, ".build-venv")
# Pinned so that regenerating gives byte-identical images (PNG/JPEG encoders included).
# pillow-heif: HEIC sample images (its libheif writes irot boxes from EXIF orientation).
# zxing-cpp: the reader scripts/bench-decode and bench-small-codes compare against (benchmarks only).
REQUIREMENTS = ["python-barcode==0.16.1", "pillow==13.0.0", "pillow-heif==1.8.1", "zxing-cpp==3.1.1"]


def reexec_in_venv():
    python = ensure_venv()
    if os.path.realpath(sys.prefix) != os.path.realpath(VENV):
        os.execv(python, [python, *sys.argv])


def ensure_venv():
    """Creates the venv and installs the pinned packages if they changed; returns its python."""
    python = os.path.join(VENV, "bin", "python")
    marker = os.path.join(VENV, "requirements.txt")
    wanted = "\n".join(REQUIREMENTS) + "\n"
    installed = open(marker).read() if os.path.exists(marker) else None
    if installed != wanted:
        print(f"setting up {os.path.relpath(VENV, ROOT)} ({', '.join(REQUIREMENTS)})", file=sys.stderr)
        if not os.path.exists(python):
            subprocess.run([sys.executable, "-m", "venv", VENV], check=True)
        subprocess.run([python, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", *REQUIREMENTS],
                       check=True)
        with open(marker, "w") as out:
            out.write(wanted)
    return python
