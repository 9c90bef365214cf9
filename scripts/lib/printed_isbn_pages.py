#!/usr/bin/env python3
"""Renders the printed-ISBN benchmark's pages into a cache folder (never committed):
copyright pages and back covers in several fonts, photographed (perspective, blur, JPEG),
with traps (phone numbers, prices, LCCNs, printing lines, ISBNs of other formats), and trap
pages holding no ISBN of this book at all. Writes DIR/pages/*.jpg and DIR/pages/manifest.tsv
(file, expected ISBN-13 or empty, kind). Deterministic: one seed per page.

Usage: scripts/lib/printed_isbn_pages.py DIR [COUNT]
"""

import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import venv_bootstrap  # noqa: E402

venv_bootstrap.reexec_in_venv()

from PIL import Image, ImageDraw, ImageFilter, ImageFont  # noqa: E402

FONTS = [
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf",
    "/usr/share/fonts/truetype/dejavu/DejaVuSansCondensed.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSerif-Regular.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
    "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf",
]
WORDS = ("the of and a to in is was he for it with as his on be at by had not are but from or have an they which "
         "one you were her all she there would their we him been has when who will more no if out so said what up "
         "its about into than them can only other new some could time these two may then do first any my now such "
         "like our over man me even most made after also did many before must through back years where much your way "
         "well down should because each just those people how too little state good very make world still own see men "
         "work long get here between both life being under never day same another know while last might us great old "
         "year off come since against go came right used take three").split()


def isbn13(rng, prefix="978"):
    body = prefix + "".join(str(rng.randrange(10)) for _ in range(9))
    check = (10 - sum(int(d) * (1 if i % 2 == 0 else 3) for i, d in enumerate(body)) % 10) % 10
    return body + str(check)


def isbn10_of(thirteen):
    body = thirteen[3:12]
    total = sum(int(d) * (10 - i) for i, d in enumerate(body))
    check = (11 - total % 11) % 11
    return body + ("X" if check == 10 else str(check))


def hyphenate(digits, groups):
    out, i = [], 0
    for g in groups:
        out.append(digits[i:i + g])
        i += g
    return "-".join(out)


def sentence(rng, n):
    words = [rng.choice(WORDS) for _ in range(n)]
    return " ".join(words).capitalize() + "."


def copyright_page(rng, kind):
    """Lines of a copyright page; returns (lines, expected ISBN-13 or '')."""
    own = isbn13(rng, "979" if rng.random() < 0.15 else "978")
    other = isbn13(rng)
    lines = [f"Copyright © {rng.randrange(1950, 2024)} by {rng.choice(['Jane', 'John', 'Ada', 'Mark'])} "
             f"{rng.choice(['Smith', 'Miller', 'Okafor', 'Larsen'])}",
             "All rights reserved. " + sentence(rng, 8),
             sentence(rng, 10),
             f"Published by {rng.choice(['Harbor', 'Northwind', 'Atlas', 'Quarry'])} Books, "
             f"{rng.randrange(10, 999)} {rng.choice(['Main', 'Park', 'Lake'])} Street, New York, NY {rng.randrange(10000, 99999)}",
             f"Tel. ({rng.randrange(200, 999)}) {rng.randrange(200, 999)}-{rng.randrange(1000, 9999)}",
             f"Library of Congress Control Number: {rng.randrange(1990, 2024)}{rng.randrange(100000, 999999)}"]
    expected = own
    if kind == "trap":
        # No ISBN of this book: other formats only, or no ISBN at all.
        if rng.random() < 0.5:
            lines.append(f"ISBN {hyphenate(other, (3, 1, 3, 5, 1))} (ebook)")
        expected = ""
    elif kind == "formats":
        lines.append(f"ISBN {hyphenate(own, (3, 1, 3, 5, 1))} (hardcover)")
        lines.append(f"ISBN {hyphenate(other, (3, 1, 3, 5, 1))} (ebook)")
    elif own.startswith("978") and rng.random() < 0.4:
        lines.append(f"ISBN {hyphenate(isbn10_of(own), (1, 3, 5, 1))}")
    else:
        lines.append(f"ISBN{rng.choice([' ', '-13: ', ': '])}{hyphenate(own, (3, 1, 3, 5, 1))}")
    lines.append(f"Printed in the United States of America")
    lines.append(" ".join(str(n) for n in range(10, 0, -1)))
    lines.append(f"${rng.randrange(5, 40)}.{rng.choice(['95', '99', '00'])} US")
    rng.shuffle(lines[1:5])
    return lines, expected


def render(lines, rng):
    font_path = rng.choice(FONTS)
    size = rng.randrange(22, 38)
    font = ImageFont.truetype(font_path, size)
    width = 1400
    height = 120 + len(lines) * int(size * 1.6)
    paper = rng.randrange(215, 250)
    page = Image.new("L", (width, height), paper)
    draw = ImageDraw.Draw(page)
    y = 60
    for line in lines:
        draw.text((70, y), line, font=font, fill=rng.randrange(10, 60))
        y += int(size * 1.6)
    # Photographed: on a darker table, a slight perspective, blur, noise-free JPEG.
    canvas = Image.new("L", (width + 300, height + 300), rng.randrange(40, 120))
    canvas.paste(page, (150, 150))
    dx, dy = rng.uniform(-60, 60), rng.uniform(-40, 40)
    w, h = canvas.size
    coeffs = find_coeffs([(0, 0), (w, 0), (w, h), (0, h)],
                         [(dx, dy), (w - dx * 0.5, -dy * 0.3), (w + dx * 0.3, h + dy * 0.5), (-dx * 0.4, h)])
    canvas = canvas.transform((w, h), Image.PERSPECTIVE, coeffs, Image.BICUBIC, fillcolor=80)
    canvas = canvas.rotate(rng.uniform(-3, 3), resample=Image.BICUBIC, expand=False, fillcolor=80)
    canvas = canvas.filter(ImageFilter.GaussianBlur(rng.uniform(0.3, 1.4)))
    scale = rng.uniform(0.55, 1.0)
    canvas = canvas.resize((int(w * scale), int(h * scale)), Image.BILINEAR)
    return canvas


def find_coeffs(source, target):
    """The 8 perspective coefficients PIL wants: each target point (x, y) maps to its source point."""
    rows, rhs = [], []
    for (sx, sy), (tx, ty) in zip(source, target):
        rows.append([tx, ty, 1, 0, 0, 0, -sx * tx, -sx * ty]); rhs.append(sx)
        rows.append([0, 0, 0, tx, ty, 1, -sy * tx, -sy * ty]); rhs.append(sy)
    n = 8
    m = [row + [value] for row, value in zip(rows, rhs)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(m[r][col]))
        m[col], m[pivot] = m[pivot], m[col]
        for r in range(n):
            if r != col:
                f = m[r][col] / m[col][col]
                m[r] = [a - f * b for a, b in zip(m[r], m[col])]
    return [m[i][n] / m[i][i] for i in range(n)]


def main():
    folder = os.path.join(sys.argv[1], "pages")
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 60
    os.makedirs(folder, exist_ok=True)
    rows = []
    for index in range(count):
        rng = random.Random(1000 + index)
        kind = ["isbn", "isbn", "formats", "trap"][index % 4]
        lines, expected = copyright_page(rng, kind)
        image = render(lines, rng)
        name = f"page-{index:03d}.jpg"
        image.save(os.path.join(folder, name), quality=rng.randrange(60, 90))
        rows.append(f"{name}\t{expected}\t{kind}")
    with open(os.path.join(folder, "manifest.tsv"), "w") as out:
        out.write("\n".join(rows) + "\n")
    print(f"{count} pages in {folder}", file=sys.stderr)


if __name__ == "__main__":
    main()
