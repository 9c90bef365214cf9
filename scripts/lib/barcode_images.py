"""Renders book and retail barcodes, and photo-like scenes around them, deterministically.

Main symbols come from python-barcode (EAN-13, EAN-8, UPC-A bar patterns); the EAN-5 price
add-on, which python-barcode lacks, is encoded here (start 01011, L/G parity chosen by the
add-on's checksum, 01 between digits). Every random choice comes from a seeded
random.Random, so the same seed gives the same pixels.
"""

import math
import os
import random
import shutil
import subprocess
import tempfile

import barcode
from PIL import Image, ImageDraw, ImageFilter, ImageFont, ImageOps

FONT_PATH = os.path.join(os.path.dirname(barcode.__file__), "fonts", "DejaVuSansMono.ttf")

# ISBNs the recorded API fixtures know, as printed above the bars on a cover.
BOOKS = {
    "9780990582939": "978-0-9905829-3-9",
    "9781250313188": "978-1-250-31318-8",
    "9781761186769": "978-1-76118-676-9",
    "9780316030571": "978-0-316-03057-1",
    "9782070427796": "978-2-07-042779-6",
    "9780306406157": "978-0-306-40615-7",
    "9791090636071": "979-10-90636-07-1",
}

_L = ["0001101", "0011001", "0010011", "0111101", "0100011", "0110001", "0101111", "0111011", "0110111", "0001011"]
_G = ["0100111", "0110011", "0011011", "0100001", "0011101", "0111001", "0000101", "0010001", "0001001", "0010111"]
_EAN5_PARITY = ["GGLLL", "GLGLL", "GLLGL", "GLLLG", "LGGLL", "LLGGL", "LLLGG", "LGLGL", "LGLLG", "LLGLG"]
# UPC-E, number system 0, by check digit (number system 1 swaps L and G).
_UPCE_PARITY = ["GGGLLL", "GGLGLL", "GGLLGL", "GGLLLG", "GLGGLL", "GLLGGL", "GLLLGG", "GLGLGL", "GLGLLG", "GLLGLG"]


def _encode(digits, parity):
    return "".join((_L if p == "L" else _G)[int(d)] for d, p in zip(digits, parity))


def ean5_bits(digits):
    checksum = (3 * sum(int(d) for d in digits[0::2]) + 9 * sum(int(d) for d in digits[1::2])) % 10
    return "01011" + "01".join(_encode(d, p) for d, p in zip(digits, _EAN5_PARITY[checksum]))


def upce_bits(digits):
    """digits: number system, six digits, check digit (python-barcode has no UPC-E)."""
    parity = _UPCE_PARITY[int(digits[7])]
    if digits[0] == "1":
        parity = parity.translate(str.maketrans("LG", "GL"))
    return "101" + _encode(digits[1:7], parity) + "010101"


_MAIN = {"EAN-13": barcode.EAN13, "EAN-8": barcode.EAN8, "UPC-A": barcode.UPCA}

# Where the human-readable digits go, as (first digit index, last+1, first module, last module);
# a module span of None prints the digit outside the bars (left or right quiet zone).
_TEXT_LAYOUT = {
    "EAN-13": [(0, 1, None, "left"), (1, 7, 3, 45), (7, 13, 50, 92)],
    "EAN-8": [(0, 4, 3, 31), (4, 8, 36, 64)],
    "UPC-A": [(0, 1, None, "left"), (1, 6, 10, 45), (6, 11, 50, 85), (11, 12, None, "right")],
    "UPC-E": [(0, 1, None, "left"), (1, 7, 3, 45), (7, 8, None, "right")],
}
# Bars drawn down into the digit row (guards, and UPC-A's first and last digit).
_LONG_BARS = {
    "EAN-13": [(0, 3), (45, 50), (92, 95)],
    "EAN-8": [(0, 3), (31, 36), (64, 67)],
    "UPC-A": [(0, 10), (45, 50), (85, 95)],
    "UPC-E": [(0, 3), (45, 51)],
}


def main_bits(symbology, digits):
    if symbology == "UPC-E":
        return upce_bits(digits)
    code = _MAIN[symbology](digits)
    if code.get_fullcode() != digits:
        raise ValueError(f"{symbology} {digits}: python-barcode made {code.get_fullcode()} (bad check digit?)")
    return code.build()[0]


def font(size):
    return ImageFont.truetype(FONT_PATH, size)


def render_label(symbology, digits, addon=None, module=3, title=None):
    """A white label with the bars, digits under them, an optional EAN-5 and a title line above."""
    bits = main_bits(symbology, digits)
    left_quiet, right_quiet, gap = 11, 7, 9
    addon_bits = ean5_bits(addon) if addon else ""
    width = (left_quiet + len(bits) + right_quiet + (gap + len(addon_bits) + 5 if addon else 0)) * module
    digit_font = font(9 * module)
    title_h = 12 * module if title else 3 * module
    bar_h, text_h = 60 * module, 11 * module
    image = Image.new("L", (width, title_h + bar_h + text_h + 2 * module), 255)
    draw = ImageDraw.Draw(image)
    if title:
        draw.text((width // 2, module), title, fill=0, font=font(8 * module), anchor="mt")
    top, bottom = title_h, title_h + bar_h
    x0 = left_quiet * module
    long_modules = {m for start, end in _LONG_BARS[symbology] for m in range(start, end)}
    for index, bit in enumerate(bits):
        if bit == "1":
            extra = 5 * module if index in long_modules else 0
            draw.rectangle([x0 + index * module, top, x0 + (index + 1) * module - 1, bottom + extra], fill=0)
    for first, last, start, end in _TEXT_LAYOUT[symbology]:
        text = digits[first:last]
        if start is None:
            x = x0 - 6 * module if end == "left" else x0 + len(bits) * module + 5 * module
            draw.text((x, bottom + module), text, fill=0, font=digit_font, anchor="mt")
        else:
            draw.text((x0 + (start + end) * module // 2, bottom + module), text, fill=0, font=digit_font, anchor="mt")
    if addon:
        ax = x0 + (len(bits) + gap) * module
        addon_top = top + text_h
        for index, bit in enumerate(addon_bits):
            if bit == "1":
                draw.rectangle([ax + index * module, addon_top, ax + (index + 1) * module - 1, bottom + 5 * module], fill=0)
        draw.text((ax + len(addon_bits) * module // 2, top + module), addon, fill=0, font=digit_font, anchor="mt")
    return image


def book_label(isbn, addon=None, module=3):
    return render_label("EAN-13", isbn, addon=addon, module=module, title=f"ISBN {BOOKS[isbn]}")


# --- degradations -------------------------------------------------------------------------

def noise_layer(rng, size):
    return Image.frombytes("L", size, rng.randbytes(size[0] * size[1]))


def add_noise(image, rng, amount):
    """Blends uniform noise in: amount 0…1 of the way towards random gray."""
    layer = noise_layer(rng, image.size)
    if image.mode != "L":
        layer = Image.merge(image.mode, [layer] * len(image.getbands()))
    return Image.blend(image, layer, amount)


def low_contrast(image, low=90, high=170):
    return image.point(lambda v: low + (high - low) * v // 255)


def downscale(image, factor):
    return image.resize((max(1, image.width // factor), max(1, image.height // factor)), Image.Resampling.BOX)


def blur(image, radius):
    return image.filter(ImageFilter.GaussianBlur(radius))


# --- scenes -------------------------------------------------------------------------------

def blotches(rng, size, cell):
    """Smooth random light/dark areas: coarse noise scaled up."""
    small = noise_layer(rng, (max(2, size[0] // cell), max(2, size[1] // cell)))
    return small.resize(size, Image.Resampling.BICUBIC)


def wood(rng, size):
    """A wood-grain-like table top: a random walk across rows, stretched, with blotches."""
    w, h = size
    value, column = 128.0, []
    for _ in range(h // 2 + 1):
        value = min(230.0, max(30.0, value + rng.uniform(-9, 9)))
        column.append(int(value))
    grain = Image.frombytes("L", (1, len(column)), bytes(column)).resize(size, Image.Resampling.BILINEAR)
    gray = Image.blend(grain, blotches(rng, size, 64), 0.35)
    gray = Image.blend(gray, noise_layer(rng, size), 0.12)
    return ImageOps.colorize(gray, black=(70, 45, 25), white=(205, 165, 120))


def random_words(rng, count):
    letters = "abcdefghijklmnopqrstuvwxyz"
    return " ".join("".join(rng.choice(letters) for _ in range(rng.randint(2, 9))) for _ in range(count))


def clutter(scene, rng, count, scale):
    """Book spines, paper scraps with text, round objects: things that are not barcodes."""
    draw = ImageDraw.Draw(scene)
    w, h = scene.size
    for _ in range(count):
        kind = rng.random()
        x, y = rng.randint(-w // 10, w), rng.randint(-h // 10, h)
        color = tuple(rng.randint(20, 235) for _ in range(3))
        if kind < 0.4:
            draw.rectangle([x, y, x + rng.randint(30, 120) * scale, y + rng.randint(150, 500) * scale], fill=color)
        elif kind < 0.75:
            pw, ph = rng.randint(120, 320) * scale, rng.randint(80, 220) * scale
            draw.rectangle([x, y, x + pw, y + ph], fill=(235, 232, 220))
            text_font = font(max(8, int(11 * scale)))
            for line in range(int(ph / (16 * scale)) - 1):
                draw.text((x + 8 * scale, y + 8 * scale + line * 16 * scale), random_words(rng, 4), fill=(40, 40, 40),
                          font=text_font)
        else:
            r = rng.randint(20, 90) * scale
            draw.ellipse([x - r, y - r, x + r, y + r], fill=color, outline=(20, 20, 20), width=max(1, int(3 * scale)))


def book_cover(rng, label, scale):
    """A coloured back cover with a blurb and the barcode label near its lower edge."""
    cw, ch = int(label.width * rng.uniform(1.15, 1.35)), int(label.height * rng.uniform(1.9, 2.3))
    color = tuple(rng.randint(60, 220) for _ in range(3))
    cover = Image.new("RGB", (cw, ch), color)
    draw = ImageDraw.Draw(cover)
    ink = (15, 15, 15) if sum(color) > 380 else (245, 245, 245)
    text_font = font(max(8, int(13 * scale)))
    for line in range(int((ch - label.height - 50 * scale) / (20 * scale))):
        draw.text((int(20 * scale), int(20 * scale + line * 20 * scale)), random_words(rng, 6), fill=ink, font=text_font)
    cover.paste(label.convert("RGB"), (cw - label.width - int(25 * scale), ch - label.height - int(25 * scale)))
    return cover


def scene(rng, size, labels, tilt=6.0, clutter_count=25):
    """A table top with clutter and one cover per label, each at a random place, slightly turned."""
    scale = size[0] / 1024
    image = wood(rng, size)
    clutter(image, rng, clutter_count, scale)
    slots = len(labels)
    for index, label in enumerate(labels):
        cover = book_cover(rng, label, scale)
        angle = rng.uniform(-tilt, tilt)
        slot_w = size[0] // slots
        fit = min(1.0, 0.95 * slot_w / cover.width, 0.95 * size[1] / cover.height)
        if fit < 1.0:  # keep the whole cover in the picture
            cover = cover.resize((int(cover.width * fit), int(cover.height * fit)), Image.Resampling.LANCZOS)
        turned = cover.rotate(angle, resample=Image.Resampling.BICUBIC, expand=True)
        mask = Image.new("L", cover.size, 255).rotate(angle, resample=Image.Resampling.BICUBIC, expand=True)
        x = index * slot_w + rng.randint(0, max(0, slot_w - turned.width))
        y = rng.randint(0, max(0, size[1] - turned.height))
        image.paste(turned, (x, y), mask)
    return lighting(image, rng)


def lighting(image, rng):
    """Uneven light (brighter in one corner), a little blur and sensor noise, as a phone adds."""
    w, h = image.size
    shade = Image.radial_gradient("L").resize((2 * w, 2 * h), Image.Resampling.BILINEAR)
    shade = ImageOps.invert(shade).point(lambda v: 150 + v * 105 // 255)
    left, top = rng.randint(w // 4, 3 * w // 4), rng.randint(h // 4, 3 * h // 4)
    shade = shade.crop((left, top, left + w, top + h))
    lit = Image.composite(image, Image.new("RGB", image.size, (0, 0, 0)), shade)
    lit = Image.blend(image, lit, 0.5)
    return add_noise(blur(lit, 0.7 * image.width / 1024), rng, 0.06)


def label_for_photo(rng, scale):
    """A random known ISBN, with an EAN-5 price half of the time; returns (label, expected codes)."""
    isbn = rng.choice(sorted(BOOKS))
    addon = rng.choice([None, "51299", "90000", "01099", "62495"])
    label = book_label(isbn, addon=addon, module=max(2, round(rng.uniform(1.6, 3.4) * scale)))
    expected = [f"EAN-13:{isbn}"] + ([f"EAN-5:{addon}"] if addon else [])
    return label, expected


# --- checking with zbarimg ---------------------------------------------------------------

ZBARIMG_ARGS = ["-q", "-Sean2.enable=1", "-Sean5.enable=1", "-Supca.enable=1", "-Supce.enable=1"]


def zbarimg_codes(path):
    """What zbarimg reads in the file, as SYMBOLOGY:TEXT (UPC-A as zbar names it); None without zbarimg."""
    if shutil.which("zbarimg") is None:
        return None
    result = subprocess.run(["zbarimg", *ZBARIMG_ARGS, path], capture_output=True, text=True)
    return sorted(line.strip() for line in result.stdout.splitlines() if line.strip())


def zbarimg_codes_downscaled(path, factor):
    """What zbarimg reads in a copy of the file downscaled by `factor` (box filter)."""
    with tempfile.TemporaryDirectory() as tmp:
        copy = os.path.join(tmp, "downscaled.png")
        downscale(Image.open(path).convert("L"), factor).save(copy)
        return zbarimg_codes(copy)


def gtin_space(codes):
    """EAN-13 "0" + UPC-A and UPC-A are the same product: compare those as one."""
    return sorted(c.replace("EAN-13:0", "UPC-A:", 1) if c.startswith("EAN-13:0") else c for c in codes)
