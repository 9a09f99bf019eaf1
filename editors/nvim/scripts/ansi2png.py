#!/usr/bin/env python3
"""Render a `tmux capture-pane -p -e` capture (ANSI SGR colors) to PNG.

Used to make the Neovim pictures in docs/ from a real nvim session:

    tmux capture-pane -t SESSION -p -e > capture.ansi
    python3 editors/nvim/scripts/ansi2png.py capture.ansi out.png

Needs ImageMagick's `convert` and the DejaVu Sans Mono font (Debian:
imagemagick, fonts-dejavu-core). Draws each cell at a fixed advance, so
the picture keeps the terminal's columns.
"""
import re
import subprocess
import sys
import tempfile

PT = 15
ADV = PT * 0.602  # DejaVu Sans Mono advance width, in em
LINE = round(PT * 1.25)
PAD = 10
DEFAULT_FG = "#d0d0d0"
DEFAULT_BG = "#1c1c1c"

BASE16 = [
    "#000000", "#cd0000", "#00cd00", "#cdcd00", "#0000ee", "#cd00cd", "#00cdcd", "#e5e5e5",
    "#7f7f7f", "#ff0000", "#00ff00", "#ffff00", "#5c5cff", "#ff00ff", "#00ffff", "#ffffff",
]


def color256(n):
    if n < 16:
        return BASE16[n]
    if n < 232:
        n -= 16
        steps = [0, 95, 135, 175, 215, 255]
        return "#%02x%02x%02x" % (steps[n // 36], steps[(n // 6) % 6], steps[n % 6])
    v = 8 + (n - 232) * 10
    return "#%02x%02x%02x" % (v, v, v)


SGR = re.compile(r"\x1b\[([0-9;]*)m")


def parse(line, st):
    """Split a line into (text, fg, bg, bold) runs, updating the SGR state st."""
    runs, pos = [], 0
    for m in SGR.finditer(line):
        if m.start() > pos:
            runs.append((line[pos:m.start()], dict(st)))
        codes = [int(c) if c else 0 for c in m.group(1).split(";")]
        i = 0
        while i < len(codes):
            c = codes[i]
            if c == 0:
                st.clear()
            elif c == 1:
                st["bold"] = True
            elif c == 22:
                st.pop("bold", None)
            elif c == 7:
                st["rev"] = True
            elif c == 27:
                st.pop("rev", None)
            elif 30 <= c <= 37:
                st["fg"] = BASE16[c - 30]
            elif 90 <= c <= 97:
                st["fg"] = BASE16[c - 90 + 8]
            elif c == 39:
                st.pop("fg", None)
            elif 40 <= c <= 47:
                st["bg"] = BASE16[c - 40]
            elif 100 <= c <= 107:
                st["bg"] = BASE16[c - 100 + 8]
            elif c == 49:
                st.pop("bg", None)
            elif c in (38, 48) and i + 2 < len(codes) and codes[i + 1] == 5:
                st["fg" if c == 38 else "bg"] = color256(codes[i + 2])
                i += 2
            elif c in (38, 48) and i + 4 < len(codes) and codes[i + 1] == 2:
                st["fg" if c == 38 else "bg"] = "#%02x%02x%02x" % tuple(codes[i + 2:i + 5])
                i += 4
            i += 1
        pos = m.end()
    if pos < len(line):
        runs.append((line[pos:], dict(st)))
    return runs


def esc(s):
    return s.replace("\\", "\\\\").replace('"', '\\"')


def main(src, dst):
    with open(src, encoding="utf-8", errors="replace") as f:
        lines = f.read().rstrip("\n").split("\n")
    cols = max(len(SGR.sub("", l)) for l in lines)
    width = int(cols * ADV) + 2 * PAD
    height = len(lines) * LINE + 2 * PAD
    mvg = [
        "viewbox 0 0 %d %d" % (width, height),
        "fill %s rectangle 0,0 %d,%d" % (DEFAULT_BG, width, height),
        "font DejaVu-Sans-Mono",
        "font-size %d" % PT,
        "text-antialias 1",
    ]
    st = {}
    for row, line in enumerate(lines):
        col = 0
        y = PAD + row * LINE
        for text, s in parse(line, st):
            fg, bg = s.get("fg", DEFAULT_FG), s.get("bg")
            if s.get("rev"):
                fg, bg = bg or DEFAULT_BG, fg
            x = PAD + col * ADV
            if bg:
                mvg.append("fill %s rectangle %.1f,%d %.1f,%d" % (bg, x, y, x + len(text) * ADV, y + LINE))
            for i, ch in enumerate(text):
                if ch != " ":
                    weight = "bold" if s.get("bold") else "normal"
                    mvg.append('fill %s font-weight %s text %.1f,%d "%s"' % (fg, weight, x + i * ADV, y + PT, esc(ch)))
            col += len(text)
    with tempfile.NamedTemporaryFile("w", suffix=".mvg", delete=False, encoding="utf-8") as f:
        f.write("\n".join(mvg) + "\n")
        name = f.name
    subprocess.run(["convert", "mvg:" + name, dst], check=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
