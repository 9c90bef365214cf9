"""The one results table the PostgreSQL benchmarks print at the end (bench-postgres, bench-stations):
a row per measure with its result, wall time, CPU time (user + system of the rapidscan processes)
and peak RSS (the largest of them), and the target it is held to."""

import os


def load():
    return " ".join(f"{x:.2f}" for x in os.getloadavg()) + f" on {os.cpu_count()} cores"


class Table:
    def __init__(self, title):
        self.title = title
        self.rows = []

    def add(self, measure, result, wall=None, cpu=None, rss=None, target=""):
        self.rows.append((measure, result, "" if wall is None else f"{wall:.2f}", "" if cpu is None else f"{cpu:.2f}",
                          "" if rss is None else f"{rss:.0f}", target))

    def print(self):
        header = ("measure", "result", "wall s", "CPU s", "peak RSS MB", "target")
        widths = [max(len(str(row[i])) for row in [header] + self.rows) for i in range(len(header))]
        line = lambda row: "| " + " | ".join(str(cell).ljust(width) for cell, width in zip(row, widths)) + " |"
        print(f"\n{self.title} (load average now {load()})")
        print(line(header))
        print("|" + "|".join("-" * (width + 2) for width in widths) + "|")
        for row in self.rows:
            print(line(row))
