#!/usr/bin/env python3
"""The series as topic series: patches/series lists the topic directories
in the order they apply (sched, then tracing); each directory holds a
cover letter (0000-cover-letter.patch), its patches and its own series
file.  They go to different maintainers.

  topics.py list           every patch file, in apply order (no cover letters)
  topics.py export TREE    write TREE's base..HEAD into the topic directories

Two kinds of topic: sched and the three tracing ones are upstream-bound
(what would be posted, keeping 6.12's ABI); v3.9-repro holds the
reproductions of 3.8 and 3.9 behaviour that the lab kernel shows and that
are not for merging.  A
commit with the trailer "Not-for-merge: reproduces Linux 3.9 behaviour" is
a v3.9-repro commit, whatever its subsystem.  The others go by their
subject's subsystem: "sched/..." and "selftests/sched" go to sched,
"ring-buffer" to ring-buffer, "tracing..." and "selftests/ftrace" to
tracing.  The tracing commits that come before the first ring-buffer one
are tracing-fixes: fixes of 6.12 for stable, each with a Fixes: trailer,
which the tracing maintainer would take first.  The topics come in the
order of TOPICS, each in one run of commits, so that export and apply give
back the same history.
"""

import os
import re
import subprocess
import sys

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PATCHES = os.path.join(TOP, "patches")
TOPICS = [
    ("sched", re.compile(r"^(sched[/:]|selftests/sched)")),
    ("tracing-fixes", None),
    ("ring-buffer", re.compile(r"^ring-buffer")),
    ("tracing", re.compile(r"^(tracing|ftrace|selftests/ftrace)")),
    ("v3.9-repro", None),
]
FIXES_TRAILER = re.compile(r"^Fixes: [0-9a-f]{12,} \(", re.M)
REPRO_TRAILER = re.compile(r"^Not-for-merge: ", re.M)
COVER = "0000-cover-letter.patch"


def die(msg):
    print(f"topics: {msg}", file=sys.stderr)
    sys.exit(1)


def topic_order():
    path = os.path.join(PATCHES, "series")
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [ln.strip().rstrip("/") for ln in f if ln.strip() and not ln.startswith("#")]


def cmd_list():
    for topic in topic_order():
        series = os.path.join(PATCHES, topic, "series")
        if not os.path.exists(series):
            die(f"patches/series names {topic}/, which has no series file")
        with open(series) as f:
            for ln in f:
                ln = ln.strip()
                if ln and not ln.startswith("#") and ln != COVER:
                    print(os.path.join(topic, ln))


def git(tree, *args):
    return subprocess.run(["git", "-C", tree, *args], check=True,
                          capture_output=True, text=True).stdout


def old_cover(topic):
    """(subject, blurb) of the topic's cover letter, or None."""
    path = os.path.join(PATCHES, topic, COVER)
    if not os.path.exists(path):
        return None
    with open(path) as f:
        text = f.read()
    head, _, body = text.partition("\n\n")
    m = re.search(r"^Subject: \[PATCH[^\]]*\] (.*(?:\n .*)*)", head, re.M)
    subject = re.sub(r"\n ", " ", m.group(1)) if m else ""
    # The blurb ends where format-patch's shortlog starts: "Name (N):".
    m = re.search(r"^\S.* \(\d+\):$", body, re.M)
    blurb = body[:m.start()].rstrip() if m else body.rstrip()
    return subject, blurb


def cmd_export(tree):
    commits = git(tree, "rev-list", "--reverse", "base..HEAD").split()
    groups = {t: [] for t, _ in TOPICS}
    seen = []
    for c in commits:
        subject = git(tree, "log", "-1", "--format=%s", c).strip()
        if REPRO_TRAILER.search(git(tree, "log", "-1", "--format=%b", c)):
            topic = "v3.9-repro"
        else:
            topic = next((t for t, rx in TOPICS if rx and rx.match(subject)), None)
        if topic == "tracing" and "ring-buffer" not in seen:
            topic = "tracing-fixes"
            if not FIXES_TRAILER.search(git(tree, "log", "-1", "--format=%b", c)):
                die(f"commit {c[:12]} '{subject}' comes before the ring-buffer "
                    "series, so it is a fix of 6.12, but it has no Fixes: trailer")
        if topic is None:
            die(f"commit {c[:12]} '{subject}': no topic; start its subject "
                "with sched/ or tracing")
        if seen and seen[-1] != topic and topic in seen:
            die(f"commit {c[:12]} '{subject}' is a {topic} commit after a "
                f"{seen[-1]} one; keep each topic's commits together "
                f"({' then '.join(t for t, _ in TOPICS)})")
        if not seen or seen[-1] != topic:
            seen.append(topic)
        groups[topic].append(c)
    order = [t for t, _ in TOPICS if t in seen]
    if order != seen:
        die(f"topics out of order: {seen}; want {order}")

    prev = git(tree, "rev-parse", "base").strip()
    for topic in order:
        cs = groups[topic]
        outdir = os.path.join(PATCHES, topic)
        cover = old_cover(topic)
        os.makedirs(outdir, exist_ok=True)
        for name in os.listdir(outdir):
            if name.endswith(".patch"):
                os.unlink(os.path.join(outdir, name))
        git(tree, "format-patch", "-q", "--no-signature", "--zero-commit",
            "--cover-letter", "-o", outdir, f"{prev}..{cs[-1]}")
        path = os.path.join(outdir, COVER)
        with open(path) as f:
            text = f.read()
        subject, blurb = cover or (f"{topic}: *** SUBJECT HERE ***",
                                   "*** BLURB HERE ***")
        text = text.replace("*** SUBJECT HERE ***", subject.split(": ", 1)[-1]
                            if subject.startswith("*** ") else subject, 1)
        text = text.replace("*** BLURB HERE ***", blurb, 1)
        # The cover letter's date is its last patch's, so that an export
        # with nothing new changes nothing.
        date = git(tree, "log", "-1", "--format=%aD", cs[-1]).strip()
        text = re.sub(r"^Date: .*$", f"Date: {date}", text, count=1, flags=re.M)
        with open(path, "w") as f:
            f.write(text)
        names = sorted(n for n in os.listdir(outdir) if n.endswith(".patch"))
        with open(os.path.join(outdir, "series"), "w") as f:
            f.write(f"# The {topic} series, in order; patches/series orders the topics.\n")
            f.write("\n".join(n for n in names if n != COVER) + "\n")
        if cover is None:
            print(f"topics: wrote patches/{topic}/{COVER}: fill in its "
                  "subject and blurb", file=sys.stderr)
        prev = cs[-1]
    for name in os.listdir(PATCHES):
        if name.endswith(".patch"):
            os.unlink(os.path.join(PATCHES, name))
    with open(os.path.join(PATCHES, "series"), "w") as f:
        f.write("# Topic series, applied in this order onto Debian "
                "linux-source-6.12 (tag base).\n")
        f.write("".join(f"{t}\n" for t in order))
    print(f"topics: exported {len(commits)} patches: " +
          ", ".join(f"{t} {len(groups[t])}" for t in order))


def main():
    if sys.argv[1:2] == ["list"]:
        cmd_list()
    elif sys.argv[1:2] == ["export"] and len(sys.argv) == 3:
        cmd_export(sys.argv[2])
    else:
        die("usage: topics.py list | export TREE")


if __name__ == "__main__":
    main()
